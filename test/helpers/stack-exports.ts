// Stack export documents as `pulumi stack export` writes them (apitype
// DeploymentV3: the stack, the default provider resources, then the dynamic
// resources with `__provider` in inputs and outputs), for the tests of the
// commands that read them, plus pickles the SDK's serializer cannot be asked for.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { VENV_PYTHON } from "./paths.js";
import { SECRET_SIG, SIG } from "./payloads.js";

export const NODE_TYPE = "pulumi-nodejs:dynamic:Resource";
export const PYTHON_TYPE = "pulumi-python:dynamic:Resource";
const PROJECT = "proj";
const STACK = "dev";

export const urnOf = (type: string, name: string) => `urn:pulumi:${STACK}::${PROJECT}::${type}::${name}`;
const STACK_URN = urnOf("pulumi:pulumi:Stack", `${PROJECT}-${STACK}`);
const providerUrn = (pkg: string) => urnOf(`pulumi:providers:${pkg}`, "default");

export interface Entry {
  type: string;
  name: string;
  /** The __provider value as stored: a string, or a secret object. */
  provider: unknown;
}

/** A secret as `stack export --show-secrets` writes it: the value's JSON text in `plaintext`. */
export const plaintextSecret = (value: unknown) => ({ [SIG]: SECRET_SIG, plaintext: JSON.stringify(value) });
/** A secret as `stack export` writes it without --show-secrets. */
export const encryptedSecret = (ciphertext: string) => ({ [SIG]: SECRET_SIG, ciphertext });

export function stackExport(entries: readonly Entry[]): object {
  const packages = [...new Set(entries.map((e) => e.type.split(":")[0]))];
  return {
    version: 3,
    deployment: {
      manifest: { time: "2025-01-01T00:00:00Z", magic: "0".repeat(64), version: "v3.259.0" },
      secrets_providers: { type: "passphrase", state: { salt: "v1:AAAA:v1:BBBB:CCCC" } },
      resources: [
        { urn: STACK_URN, custom: false, type: "pulumi:pulumi:Stack", outputs: {} },
        ...packages.map((pkg) => ({ urn: providerUrn(pkg), custom: true, id: `${pkg}-id`, type: `pulumi:providers:${pkg}`, inputs: {}, outputs: {} })),
        ...entries.map((e) => ({
          urn: urnOf(e.type, e.name),
          custom: true,
          id: `${e.name}-id`,
          type: e.type,
          inputs: { __provider: e.provider, label: e.name },
          outputs: { __provider: e.provider, label: e.name },
          parent: STACK_URN,
          provider: `${providerUrn(e.type.split(":")[0])}::${e.type.split(":")[0]}-id`,
          propertyDependencies: { label: [] },
        })),
      ],
    },
  };
}

const temps: string[] = [];

/** Writes a document (or raw text) to a new temporary file and returns its path; removeTemps() deletes them all. */
export function writeTemp(content: object | string, name = "export.json"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stack-export-"));
  temps.push(dir);
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return file;
}

export function removeTemps(): void {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** Runs `script` with the test virtualenv's Python in `cwd` and returns its stdout, trimmed. */
export function runVenvPython(script: string, cwd: string): string {
  return execFileSync(VENV_PYTHON, ["-c", script], { cwd, encoding: "utf8", env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } }).trim();
}
