// Where a serialized provider's `require`s resolve from, and what a "cannot
// find module" error says about it. A text serialized by the program resolves
// from the program directory (the plugin's working directory), as the
// reference's does. A text serialized inside a multi-language component
// (../host/components/component-folder.ts) was written in the component's
// process, with the component's modules: it resolves from the component's
// folder first and then from the program directory (so a program's own
// ComponentResource, mistaken for a component, loses nothing).
//
// Every message names the folders searched and the one to install into: the
// component's folder for a component's provider; otherwise the program's
// package (the nearest package.json at or above the program directory), or
// the program directory itself when it is not a Node project.
import { createRequire } from "node:module";
import path from "node:path";
import type { ComponentFolder } from "../host/components/component-folder.js";
import { findUpward } from "../host/files/file-probe.js";

export interface ModuleHome {
  /** The folders a `require` resolves from, in order (their node_modules, and those of their parents). */
  dirs: string[];
  /** "the program directory /p (its node_modules and those of its parents)", for "it was resolved from …". */
  searched: string;
  /** The advice for a missing package `name` ("install acme in …"); "it" when the request names no package. */
  install(name?: string): string;
  /** The component the text was serialized in, when it was. */
  component?: ComponentFolder;
}

/** The home of a text the program serialized. */
export function programHome(programDir: string): ModuleHome {
  const pkg = findUpward(programDir, ["package.json"])?.dir;
  return {
    dirs: [programDir],
    searched: `the program directory ${programDir} (its node_modules and those of its parents)`,
    install: (name) =>
      pkg
        ? `install ${name ?? "it"} in the program's package, ${pkg} (npm install${name ? ` ${name}` : ""} there)`
        : `install ${name ?? "it"} in the program directory ${programDir} (npm install${name ? ` ${name}` : ""} there)`,
  };
}

/** The home of a text serialized inside `component`. */
export function componentHome(component: ComponentFolder, programDir: string): ModuleHome {
  return {
    dirs: [component.dir, programDir],
    component,
    searched:
      `the folder of component ${component.componentType}, ${component.dir} (the package of ${component.plugin}, which the engine ` +
      `runs for ${component.package}, found through ${component.foundBy}), then the program directory ${programDir} ` +
      `(their node_modules and those of their parents)`,
    install: (name) =>
      `install ${name ?? "it"} in the component's folder ${component.dir} (npm install${name ? ` ${name}` : ""} there): the component's ` +
      `package holds the modules of the dynamic providers it creates`,
  };
}

/**
 * A `require` that resolves from `home`'s folders in order. With one folder
 * it is Node's own, made at that folder; with more, each request is resolved
 * with their lookup paths in turn and the file found is loaded (a builtin
 * resolves to itself). `resolve.paths` lists every folder's lookup paths, so
 * ./moved-modules.ts finds a moved package in any of them, in order.
 */
export function homeRequire(home: ModuleHome): NodeJS.Require {
  const [first, ...rest] = home.dirs.map((d) => createRequire(path.join(d, "[pulumi dynamic provider]")));
  if (rest.length === 0) return first;
  const all = [first, ...rest];
  const resolve = function resolve(id: string, options?: { paths?: string[] }): string {
    if (options?.paths) return first.resolve(id, options);
    let firstError: unknown;
    for (const r of all) {
      try {
        return r.resolve(id);
      } catch (e) {
        firstError ??= e;
      }
    }
    throw firstError;
  } as NodeJS.RequireResolve;
  resolve.paths = (request: string) => {
    const seen = new Set<string>();
    const out: string[] = [];
    for (const r of all) for (const p of r.resolve.paths(request) ?? []) if (!seen.has(p)) seen.add(p), out.push(p);
    return out;
  };
  const req = function require(id: string): unknown {
    return first(resolve(id));
  } as NodeJS.Require;
  req.resolve = resolve;
  req.cache = first.cache;
  req.main = first.main;
  req.extensions = first.extensions;
  return req;
}

/** The package a bare request names ("acme" of "acme/lib/x.js", "@s/p" of "@s/p/x"); undefined for a path or "node:" builtin. */
export function packageNameOf(id: string): string | undefined {
  if (id === "" || id.startsWith(".") || id.startsWith("/") || id.startsWith("node:") || /^[A-Za-z]:[\\/]/.test(id) || id.startsWith("\\")) return undefined;
  const parts = id.split("/");
  if (id.startsWith("@")) return parts.length >= 2 && parts[1] ? `${parts[0]}/${parts[1]}` : undefined;
  return parts[0];
}
