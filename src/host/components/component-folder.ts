// The folder of the multi-language component a dynamic resource was created
// in (pulumi/pulumi#5455). A component provider (a plugin the engine runs as
// `pulumi-resource-<pkg>`) that creates a dynamic resource serializes its
// provider in the component's own process, with the component's modules; the
// dynamic-provider plugin is started in the program's folder, so the
// serialized code's `require`s must be resolved from the component's folder
// instead. The resource's URN names its parents' types
// (`widgets:index:Greeter$pulumi-nodejs:dynamic:Resource`); the nearest
// parent whose package has a plugin the engine would run, and that plugin a
// Node package, is the component, and that package's folder (the nearest
// package.json at or above the plugin file, its symlinks resolved) is where
// its modules are. A parent whose plugin is not a Node package (a Go or
// Python provider's custom resource used as a parent) is passed over.
//
// The plugin is looked for in the engine's order (../plugin/plugin-lookup.ts):
// the project's `plugins.providers` entry, then the project's `packages:` entry
// whose source is a local folder (which the engine turns into a project plugin),
// then $PATH (unless PULUMI_IGNORE_AMBIENT_PLUGINS), then the plugin cache,
// its highest version (the engine takes the exact version a program asks for,
// which no request tells the host). The step "next to pulumi" is the engine's
// for the plugins it bundles only, never a component's. A parent type no plugin
// is found for (a program's own ComponentResource, such as `my:app:Site`) is
// skipped: its resources resolve from the program's folder.
//
// Nothing here throws: a Pulumi.yaml that cannot be read or parsed gives no
// project entries (the engine itself would have refused to run with it).
import { parseYaml } from "../files/yaml-text.js";
import os from "node:os";
import path from "node:path";
import { isDirectory, isFile, readText, realPath } from "../files/file-probe.js";
import type { Platform } from "../files/platform.js";
import {
  candidateFiles,
  isPluginExecutable,
  lookPath,
  projectPluginsOf,
  resourcePluginBinary,
  resourcePluginFromCache,
  truthy,
} from "../plugin/plugin-lookup.js";

/** Where the component of a resource lives, for resolving its serialized provider's modules. */
export interface ComponentFolder {
  /** The component's package: its type token's first part ("widgets"). */
  package: string;
  /** The component's type token, as the URN names it ("widgets:index:Greeter"). */
  componentType: string;
  /** The plugin the engine runs for the package: a file, or a folder the engine runs through its PulumiPlugin.yaml. */
  plugin: string;
  /** Which step of the engine's lookup found it, in words for messages ("the project's plugins.providers in …/Pulumi.yaml"). */
  foundBy: string;
  /** The component's package folder: modules resolve from here (its node_modules and those above it). */
  dir: string;
}

/** Packages whose types are never a component's with a plugin folder of its own. */
const NOT_COMPONENTS = new Set(["pulumi", "pulumi-nodejs", "pulumi-python"]);

/**
 * The parent types of a URN's resource, nearest first, leaving out the
 * resource's own type and types of the packages in NOT_COMPONENTS; none for
 * a URN with no parent type (the stack is not in it) or one that is not a URN.
 */
export function parentTypesOfUrn(urn: string): string[] {
  const afterStack = urn.indexOf("::");
  const afterProject = afterStack < 0 ? -1 : urn.indexOf("::", afterStack + 2);
  const afterType = afterProject < 0 ? -1 : urn.indexOf("::", afterProject + 2);
  if (afterType < 0 || !urn.startsWith("urn:pulumi:")) return [];
  const chain = urn.slice(afterProject + 2, afterType).split("$");
  return chain
    .slice(0, -1)
    .reverse()
    .filter((t) => {
      const pkg = packageOfType(t);
      return pkg !== "" && !NOT_COMPONENTS.has(pkg);
    });
}

/** A type token's package ("widgets" of "widgets:index:Greeter"), or "" when it has no ":". */
export function packageOfType(type: string): string {
  const i = type.indexOf(":");
  return i <= 0 ? "" : type.slice(0, i);
}

export interface LookupContext {
  /** The project's root (the directory of Pulumi.yaml), when there is one. */
  projectRoot?: string;
  env: NodeJS.ProcessEnv;
  platform?: Platform;
  /** The user's home directory (os.homedir() unless a test says): no component's package root is at or above it. */
  home?: string;
}

/** The plugin the engine would run for package `pkg`, and how it was found; undefined when it would find none. */
export async function findComponentPlugin(pkg: string, ctx: LookupContext): Promise<{ plugin: string; foundBy: string; folder: string } | undefined> {
  const platform = ctx.platform ?? process.platform;
  const binary = resourcePluginBinary(pkg);
  const project = ctx.projectRoot ? await projectEntries(ctx.projectRoot) : undefined;
  const entry = project?.plugins.find((p) => p.name === pkg);
  if (entry) {
    const file = candidateFiles(binary, platform).map((f) => path.join(entry.dir, f)).find((p) => isPluginExecutable(p, false, platform));
    return { plugin: file ?? entry.dir, foundBy: `the plugins.providers entry of ${pkg} in ${project!.file}`, folder: entry.dir };
  }
  const declared = project?.packages.find((p) => p.name === pkg);
  if (declared) return { plugin: declared.dir, foundBy: `the packages entry of ${pkg} in ${project!.file}`, folder: declared.dir };
  const ambient = truthy(ctx.env.PULUMI_IGNORE_AMBIENT_PLUGINS) ? undefined : lookPath(binary, ctx.env, platform);
  if (ambient) return { plugin: ambient, foundBy: "$PATH", folder: path.dirname(realPath(ambient) ?? ambient) };
  const cached = resourcePluginFromCache(pkg, ctx.env, platform);
  if (cached) return { plugin: cached, foundBy: "the plugin cache", folder: path.dirname(realPath(cached) ?? cached) };
  return undefined;
}

/**
 * The Node package folder holding `folder` (symlinks resolved): the nearest
 * one at or above it with a package.json, not looking above a package folder
 * in node_modules, nor at the home directory or above it (a package.json
 * there is not the plugin's); undefined when there is none, as for a plugin
 * that is a Go or Python program.
 */
export function packageRootOf(folder: string, home: string = os.homedir()): string | undefined {
  let dir = realPath(folder) ?? path.resolve(folder);
  const homeDir = realPath(home) ?? home;
  for (;;) {
    if (dir === homeDir) return undefined;
    if (isFile(path.join(dir, "package.json"))) return dir;
    const up = path.dirname(dir);
    if (up === dir || path.basename(dir) === "node_modules" || path.basename(up) === "node_modules") return undefined;
    dir = up;
  }
}

/**
 * The component folders of one plugin process: looked up once per package
 * (the project file and the plugins do not change under a running engine).
 */
export class ComponentFolders {
  private readonly byPackage = new Map<string, Promise<Omit<ComponentFolder, "componentType"> | undefined>>();

  constructor(private readonly ctx: LookupContext) {}

  /** The component a resource of `urn` was created in, or undefined when none of its parents is one. */
  async of(urn: string): Promise<ComponentFolder | undefined> {
    for (const componentType of parentTypesOfUrn(urn)) {
      const pkg = packageOfType(componentType);
      let found = this.byPackage.get(pkg);
      if (!found) {
        found = findComponentPlugin(pkg, this.ctx).then((p) => {
          const dir = p && packageRootOf(p.folder, this.ctx.home);
          return p && dir ? { package: pkg, plugin: p.plugin, foundBy: p.foundBy, dir } : undefined;
        });
        this.byPackage.set(pkg, found);
      }
      const folder = await found;
      if (folder) return { ...folder, componentType };
    }
    return undefined;
  }
}

interface ProjectEntries {
  file: string;
  plugins: { name: string; dir: string }[];
  /** `packages:` entries whose source is a local folder. */
  packages: { name: string; dir: string }[];
}

/** The project file's plugin and local-folder package entries, or undefined when it cannot be read as YAML. */
async function projectEntries(root: string): Promise<ProjectEntries | undefined> {
  const file = ["Pulumi.yaml", "Pulumi.yml"].map((f) => path.join(root, f)).find(isFile);
  const text = file && readText(file);
  if (!file || text === undefined) return undefined;
  let doc: unknown;
  try {
    doc = await parseYaml(text);
  } catch {
    return undefined;
  }
  const packages: { name: string; dir: string }[] = [];
  const declared = doc && typeof doc === "object" ? (doc as Record<string, unknown>).packages : undefined;
  if (declared && typeof declared === "object" && !Array.isArray(declared)) {
    for (const [name, value] of Object.entries(declared)) {
      const source = typeof value === "string" ? value : value && typeof value === "object" ? (value as Record<string, unknown>).source : undefined;
      if (typeof source !== "string" || !isLocalSource(source)) continue;
      const dir = path.resolve(root, source);
      if (isDirectory(dir)) packages.push({ name, dir });
    }
  }
  return { file, plugins: projectPluginsOf(doc, root), packages };
}

/** A package source the engine reads as a local path: ./…, ../…, or absolute. */
function isLocalSource(source: string): boolean {
  return source.startsWith("./") || source.startsWith("../") || source === "." || source === ".." || path.isAbsolute(source);
}
