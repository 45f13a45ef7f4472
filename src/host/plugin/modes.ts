// src/host/plugin: what the plugin is, by the name it was run as: its mode and
// language (modes.ts), its command line (args.ts) and the version it reports
// (plugin-info.ts). It may import src/host/files (the package's version is an
// asset) and src/host/diagnostics.
//
// What differs between the two plugin names before any provider code runs:
// the package it serves, the refusal texts of RPCs it does not offer, argv
// rules and the plugin version. Everything else is shared.
import path from "node:path";

// grpc status codes, as numbers: this module is in the entry's static imports,
// and importing grpc-js for two constants would load and run all of grpc-js
// (and protobufjs) before the host can start its Python worker.
const UNKNOWN = 2;
const UNIMPLEMENTED = 12;

/** The language a plugin serves: its providers' language, and its adapter's. */
export type Language = "nodejs" | "python";

export interface Mode {
  language: Language;
  /**
   * The resource package this plugin serves, the prefix of every type token:
   * pulumi-nodejs or pulumi-python, or a package of the project's own name
   * (packageMode) whose types Pulumi.yaml declares.
   */
  package: string;
  binary: string;
  /** The Node reference exits 255 without an engine address; the Python one ignores argv. */
  requiresEngineAddress: boolean;
  /** Details text of an UNIMPLEMENTED answer for the named RPC. */
  unimplemented(rpc: string): string;
  /** The status Invoke answers with. */
  invoke(tok: string): { code: number; details: string };
}

const notByDynamic = (rpc: string) => `${rpc} is not implemented by the dynamic provider`;

// The Python reference inherits the generated servicer's text except where it overrides the method.
const pythonOverrides = new Set(["GetSchema", "CheckConfig", "DiffConfig", "List", "Invoke"]);

export const NODEJS: Mode = {
  language: "nodejs",
  package: "pulumi-nodejs",
  binary: "pulumi-resource-pulumi-nodejs",
  requiresEngineAddress: true,
  unimplemented: notByDynamic,
  invoke: (tok) => ({ code: UNKNOWN, details: `unknown function ${tok}` }),
};

export const PYTHON: Mode = {
  language: "python",
  package: "pulumi-python",
  binary: "pulumi-resource-pulumi-python",
  requiresEngineAddress: false,
  unimplemented: (rpc) => (pythonOverrides.has(rpc) ? notByDynamic(rpc) : "Method not implemented!"),
  invoke: () => ({ code: UNIMPLEMENTED, details: notByDynamic("Invoke") }),
};

export const MODES: readonly Mode[] = [NODEJS, PYTHON];

/** The prefix of a provider plugin's executable name: pulumi-resource-<package>. */
export const PLUGIN_PREFIX = "pulumi-resource-";

/**
 * The package a plugin name other than the two dynamic ones serves
 * (pulumi-resource-files serves files), or undefined for any other name.
 */
export function ownPackageOfBinary(name: string): string | undefined {
  const base = withoutExtension(name);
  if (!base.startsWith(PLUGIN_PREFIX) || MODES.some((m) => m.binary === base)) return undefined;
  const pkg = base.slice(PLUGIN_PREFIX.length);
  return /^[A-Za-z][A-Za-z0-9_-]*$/.test(pkg) ? pkg : undefined;
}

/**
 * Serving a package of the project's own name (docs/schema.md): its types are
 * all declared in Pulumi.yaml, in one language, and a request never carries
 * serialized code. The engine's argv is read as the Node plugin's, and the
 * RPCs it does not offer are refused with the Node plugin's texts.
 */
export function packageMode(pkg: string, language: Language): Mode {
  return { ...NODEJS, language, package: pkg, binary: `${PLUGIN_PREFIX}${pkg}`, invoke: (language === "nodejs" ? NODEJS : PYTHON).invoke };
}

/** The mode for an invoked binary name (argv basename, any extension dropped), or undefined. */
export function modeForBinary(name: string): Mode | undefined {
  const base = withoutExtension(name);
  return MODES.find((m) => m.binary === base);
}

/** A plugin's file name without the extension a script or Windows executable adds. */
function withoutExtension(name: string): string {
  return name.replace(/\.(c?js|mjs|cmd|exe)$/i, "");
}

/** The command for people's name: as PULUMI_DYNAMIC_HOST_SERVE's file name, it asks for no mode. */
export const COMMAND_NAME = "pulumi-dynamic-host";

/**
 * The mode a process serves: the one `served` names (a launcher's
 * PULUMI_DYNAMIC_HOST_SERVE: the Python plugin's launcher's own path, or the
 * wheel's launcher of the command for people, whose file name is
 * pulumi-dynamic-host and which asks for no mode), else the one `invoked` (the
 * path it was run by) names; undefined for the command for people.
 */
export function modeOfProcess(invoked: string, served: string | undefined): Mode | undefined {
  if (served) {
    const name = path.basename(served);
    if (name === COMMAND_NAME) return undefined;
    const mode = modeForBinary(name);
    if (mode) return mode;
  }
  return modeForBinary(path.basename(invoked));
}

export function modeForLanguage(language: string): Mode | undefined {
  return MODES.find((m) => m.language === language);
}
