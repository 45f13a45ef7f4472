// `__provider` payloads the Python plugin cannot load, in every resource
// method, sent to the Python reference (`python -u -m pulumi.dynamic` in the
// test virtualenv, pulumi 3.270.0) and to our pulumi-resource-pulumi-python,
// both run from a program directory that holds no module of the tests.
//
// [difference] The reference answers UNKNOWN with a bare traceback whose last
// line is dill's or pickle's exception (`EOFError: Ran out of input`,
// `_pickle.UnpicklingError: invalid load key, '\x00'.`), naming neither the
// method nor the resource beyond its own `in Create` frame. Ours answers UNKNOWN
// too, with "<Operation> <urn>: " and what was wrong with the payload, then
// the same traceback (ending in the same exception lines) below. What the host
// can tell without unpickling (an empty text) it says before any worker runs;
// an object that is no provider at all is said in words, with no traceback.
import { expect } from "chai";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Outcome, ProviderClient } from "../helpers/client.js";
import { pythonProvider } from "../helpers/payloads.js";
import { launchPair } from "../helpers/plugin.js";
import { both, usePair } from "../helpers/pair.js";

const urnOf = (name: string) => `urn:pulumi:dev::proj::pulumi-python:dynamic:Resource::${name}`;
const faulty = (name: string) => pythonProvider(name, "python_fault_providers.py");

const METHODS = ["Check", "Diff", "Create", "Read", "Update", "Delete"] as const;
type Operation = (typeof METHODS)[number];

/** The request of `op` whose provider bag holds `provider`, the way the engine sends it. */
function send(c: ProviderClient, op: Operation, urn: string, provider: string): Promise<Outcome> {
  const bag = { __provider: provider, a: 1 };
  switch (op) {
    case "Check":
      return c.check({ urn, olds: {}, news: bag });
    case "Diff":
      return c.diff({ urn, id: "id1", olds: bag, news: bag });
    case "Create":
      return c.create({ urn, properties: bag });
    case "Read":
      return c.read({ urn, id: "id1", properties: bag });
    case "Update":
      return c.update({ urn, id: "id1", olds: bag, news: bag });
    case "Delete":
      return c.delete({ urn, id: "id1", properties: bag });
  }
}

/** The exception lines that end a traceback (after its last frame), as grpc-python sends it. */
function finalLines(details: string): string[] {
  const lines = details.replace(/\n$/, "").split("\n");
  let last = -1;
  for (let i = 0; i < lines.length; i++) if (/^ {2}File "/.test(lines[i])) last = i;
  let i = last + 1;
  while (i < lines.length && lines[i].startsWith("    ")) i++;
  return lines.slice(i);
}

interface Case {
  name: string;
  payload: () => string;
  /** The reference's last traceback line. */
  reference: string;
  /** Ours' whole first line after "<Operation> <urn>: ", or a pattern for it. */
  reason: string | RegExp;
  /** Ours keeps the worker's traceback below the first line, ending like the reference's. */
  traceback: boolean;
}

/** Bytes of the SDK's own pickle of a real provider. */
const pickled = () => Buffer.from(pythonProvider("scripted"), "base64");
const base64 = (b: Buffer) => b.toString("base64");

/** `n` bytes from a fixed-seed generator (a linear congruential one), so every run sends the same. */
function seededBytes(n: number, seed: number): Buffer {
  const out = Buffer.alloc(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
    out[i] = s >>> 16;
  }
  return out;
}

const LOAD = "the resource's __provider could not be loaded: ";

function cases(programDir: string): Case[] {
  const missingModule = (module: string) =>
    `it needs the module '${module}', which is not on the program's path (ModuleNotFoundError: No module named '${module}'); ` +
    `put the module in the program directory (${programDir}, first on sys.path) or install it in the program's environment`;
  return [
    {
      name: "an empty string",
      payload: () => "",
      reference: "EOFError: Ran out of input",
      reason: "its __provider is an empty string, not the base64 text the pulumi Python SDK writes",
      traceback: false,
    },
    {
      name: "a pickle cut after its protocol header",
      payload: () => base64(pickled().subarray(0, 2)),
      reference: "EOFError: Ran out of input",
      reason: `${LOAD}the pickle is cut short: it ends before it is complete (EOFError: Ran out of input)`,
      traceback: true,
    },
    {
      name: "a pickle cut to its first 400 bytes",
      payload: () => base64(pickled().subarray(0, 400)),
      reference: "_pickle.UnpicklingError: pickle data was truncated",
      reason: `${LOAD}the pickle is cut short: it ends before it is complete (UnpicklingError: pickle data was truncated)`,
      traceback: true,
    },
    {
      name: "a pickle with its first frame opcode bit-flipped",
      payload: () => {
        const b = pickled();
        b[2] ^= 0xff;
        return base64(b);
      },
      reference: "/^_pickle\\.UnpicklingError: /",
      reason: new RegExp(`^${LOAD}it is a damaged pickle \\(UnpicklingError: .+\\)$`),
      traceback: true,
    },
    {
      name: "base64 of random bytes",
      payload: () => {
        const b = seededBytes(300, 22);
        b[0] = 0;
        return base64(b);
      },
      reference: "_pickle.UnpicklingError: invalid load key, '\\x00'.",
      reason: `${LOAD}it is not a pickle the pulumi Python SDK wrote: it does not start with a pickle protocol header (UnpicklingError: invalid load key, '\\x00'.)`,
      traceback: true,
    },
    {
      name: "random bytes behind a pickle protocol header of an unknown protocol",
      payload: () => {
        const b = seededBytes(300, 23);
        b[0] = 0x80;
        b[1] = 0xf3;
        return base64(b);
      },
      reference: "ValueError: unsupported pickle protocol: 243",
      reason: new RegExp(`^${LOAD}it is a pickle of protocol 243, newer than this Python \\(3\\.\\d+\\.\\d+\\) reads \\(ValueError: unsupported pickle protocol: 243\\)$`),
      traceback: true,
    },
    {
      name: "a pickle of a dict",
      payload: () => faulty("notAProvider"),
      reference: "AttributeError: 'dict' object has no attribute 'configure'",
      reason: `${LOAD}it holds a builtins.dict, not a pulumi.dynamic.ResourceProvider (it has no configure method)`,
      traceback: false,
    },
    {
      name: "a pickle of an object of a class with no provider method",
      payload: () => faulty("gadget"),
      reference: "AttributeError: 'Gadget' object has no attribute 'configure'",
      reason: `${LOAD}it holds a __main__.Gadget, not a pulumi.dynamic.ResourceProvider (it has no configure method)`,
      traceback: false,
    },
    {
      name: "a provider pickled by value that uses a module the program does not have",
      payload: () => faulty("needsPhantom"),
      reference: "ModuleNotFoundError: No module named 'phantom_helper'",
      reason: `${LOAD}${missingModule("phantom_helper")}`,
      traceback: true,
    },
    {
      name: "a provider class pickled by reference whose module is not on the program's path",
      payload: () => pythonProvider("local"),
      reference: "ModuleNotFoundError: No module named 'provider'",
      reason: `${LOAD}its provider class provider.SimpleProvider could not be imported: ${missingModule("provider")}`,
      traceback: true,
    },
  ];
}

describe("differential (Python): __provider payloads that cannot be loaded, in every method", function () {
  // A program directory of its own: no provider.py, no phantom_helper.py.
  const programDir = realpathSync(mkdtempSync(path.join(tmpdir(), "load-errors-")));
  after(() => rmSync(programDir, { recursive: true, force: true }));
  const pair = usePair(() => launchPair({ language: "python", cwd: programDir }));

  for (const c of cases(programDir)) {
    it(`${c.name} [difference]: ours names the method, the resource and what is wrong, then the reference's traceback`, async function () {
      const provider = c.payload();
      for (const op of METHODS) {
        const urn = urnOf(`${op.toLowerCase()}-${c.name.replace(/\W+/g, "-")}`);
        const [o, r] = await both(pair, (client) => send(client, op, urn, provider));
        // The reference: UNKNOWN and a traceback whose frames name its RPC method, nothing more.
        expect(r.code, `${op} reference: ${r.details}`).to.equal(2);
        expect(r.details, `${op} reference`).to.match(/^Traceback \(most recent call last\):\n/);
        expect(r.details).to.contain(`in ${op}\n`);
        expect(r.details).to.not.contain(urn);
        const refFinal = finalLines(r.details);
        if (c.reference.startsWith("/")) expect(refFinal.join("\n")).to.match(new RegExp(c.reference.slice(1, -1)));
        else expect(refFinal, `${op} reference`).to.deep.equal([c.reference]);
        // Ours: the same code, the method and resource first, then what was wrong.
        expect(o.code, `${op} ours: ${o.details}`).to.equal(2);
        const [first, ...rest] = o.details.split("\n");
        const prefix = `${op} ${urn}: `;
        expect(first.startsWith(prefix), `${op} ours: ${first}`).to.equal(true);
        if (typeof c.reason === "string") expect(first.slice(prefix.length), `${op} ours`).to.equal(c.reason);
        else expect(first.slice(prefix.length), `${op} ours`).to.match(c.reason);
        if (c.traceback) {
          expect(rest[0]).to.equal("");
          expect(rest[1]).to.equal("Traceback (most recent call last):");
          expect(finalLines(rest.join("\n")), `${op} ours: the traceback's exception lines`).to.deep.equal(refFinal);
        } else {
          expect(rest, `${op} ours`).to.deep.equal([]);
        }
      }
    });
  }

  it("after every one of them, both still serve a provider that loads", async function () {
    const [o, r] = await both(pair, (c) => c.create({ urn: urnOf("fine"), properties: { __provider: pythonProvider("minimal") } }));
    expect(o.code, o.details).to.equal(0);
    expect(r.code, r.details).to.equal(0);
    expect(o.view).to.deep.equal(r.view);
  });
});
