// What differs between the two plugin names before any provider code runs:
// the package it serves, the refusal texts of RPCs it does not offer, argv
// rules and the plugin version. Everything else is shared.
import path from "node:path";
import type { Language } from "./runtime.js";

// grpc status codes, as numbers: this module is in the entry's static imports,
// and importing grpc-js for two constants would load and run all of grpc-js
// (and protobufjs) before the host can start its Python worker.
const UNKNOWN = 2;
const UNIMPLEMENTED = 12;

export interface Mode {
  language: Language;
  /** The resource package this plugin serves, the prefix of every type token. */
  package: "pulumi-nodejs" | "pulumi-python";
  binary: "pulumi-resource-pulumi-nodejs" | "pulumi-resource-pulumi-python";
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

/** The mode for an invoked binary name (argv basename, any extension dropped), or undefined. */
export function modeForBinary(name: string): Mode | undefined {
  const base = name.replace(/\.(c?js|mjs|cmd|exe)$/i, "");
  return MODES.find((m) => m.binary === base);
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
