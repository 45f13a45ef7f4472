// `__provider` payloads the Python plugin cannot load, in every resource
// method, asked of the plugin and of the Python reference, both run from a
// program directory that holds no module of the scenarios (python-program/bare).
//
// [difference] The reference answers UNKNOWN with a bare traceback whose last
// line is dill's or pickle's exception (`EOFError: Ran out of input`,
// `_pickle.UnpicklingError: invalid load key, '\x00'.`), naming neither the
// method nor the resource beyond its own `in Create` frame. Ours answers UNKNOWN
// too, with "<Operation> <urn>: " and what was wrong with the payload, then
// the same traceback (ending in the same exception lines) below. What the host
// can tell without unpickling (an empty text) it says before any worker runs;
// an object that is no provider at all is said in words, with no traceback.
import { realpathSync } from "node:fs";
import path from "node:path";
import { contains, equal, matches, notContains, ok, session, type Case, type CaseContext } from "../../case.js";
import type { Outcome, ProviderClient } from "../../client.js";
import { BASE_ENV } from "./python-common.js";

const METHODS = ["Check", "Diff", "Create", "Read", "Update", "Delete"] as const;
type Operation = (typeof METHODS)[number];

/** The program directory of these cases, under the scenarios' program folder. */
const BARE = "bare";

const s = session({
  id: "python/load-errors",
  language: "python",
  suite: ["differential (Python): __provider payloads that cannot be loaded, in every method"],
  launch: { cwd: BARE, env: BASE_ENV },
});

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

interface LoadCase {
  name: string;
  payload: (ctx: CaseContext) => Promise<string>;
  /** The reference's last traceback line, or "/regex/". */
  reference: string;
  /** Ours' whole first line after "<Operation> <urn>: ", or a pattern for it (given the program directory). */
  reason: (programDir: string) => string | RegExp;
  /** Ours keeps the worker's traceback below the first line, ending like the reference's. */
  traceback: boolean;
}

/** Bytes of the SDK's own pickle of a real provider. */
const pickled = async (ctx: CaseContext) => Buffer.from(await ctx.payload("scripted"), "base64");
const base64 = (b: Buffer) => b.toString("base64");
const faulty = (ctx: CaseContext, name: string) => ctx.payload(name, "python_fault_providers");

/** `n` bytes from a fixed-seed generator (a linear congruential one), so every run sends the same. */
function seededBytes(n: number, seed: number): Buffer {
  const out = Buffer.alloc(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) & 0x7fffffff;
    out[i] = x >>> 16;
  }
  return out;
}

const LOAD = "the resource's __provider could not be loaded: ";

const missingModule = (programDir: string, module: string) =>
  `it needs the module '${module}', which is not on the program's path (ModuleNotFoundError: No module named '${module}'); ` +
  `put the module in the program directory (${programDir}, first on sys.path) or install it in the program's environment`;

const LOAD_CASES: LoadCase[] = [
  {
    name: "an empty string",
    payload: async () => "",
    reference: "EOFError: Ran out of input",
    reason: () => "its __provider is an empty string, not the base64 text the pulumi Python SDK writes",
    traceback: false,
  },
  {
    name: "a pickle cut after its protocol header",
    payload: async (ctx) => base64((await pickled(ctx)).subarray(0, 2)),
    reference: "EOFError: Ran out of input",
    reason: () => `${LOAD}the pickle is cut short: it ends before it is complete (EOFError: Ran out of input)`,
    traceback: true,
  },
  {
    name: "a pickle cut to its first 400 bytes",
    payload: async (ctx) => base64((await pickled(ctx)).subarray(0, 400)),
    reference: "_pickle.UnpicklingError: pickle data was truncated",
    reason: () => `${LOAD}the pickle is cut short: it ends before it is complete (UnpicklingError: pickle data was truncated)`,
    traceback: true,
  },
  {
    name: "a pickle with its first frame opcode bit-flipped",
    payload: async (ctx) => {
      const b = await pickled(ctx);
      b[2] ^= 0xff;
      return base64(b);
    },
    reference: "/^_pickle\\.UnpicklingError: /",
    reason: () => new RegExp(`^${LOAD}it is a damaged pickle \\(UnpicklingError: .+\\)$`),
    traceback: true,
  },
  {
    name: "base64 of random bytes",
    payload: async () => {
      const b = seededBytes(300, 22);
      b[0] = 0;
      return base64(b);
    },
    reference: "_pickle.UnpicklingError: invalid load key, '\\x00'.",
    reason: () => `${LOAD}it is not a pickle the pulumi Python SDK wrote: it does not start with a pickle protocol header (UnpicklingError: invalid load key, '\\x00'.)`,
    traceback: true,
  },
  {
    name: "random bytes behind a pickle protocol header of an unknown protocol",
    payload: async () => {
      const b = seededBytes(300, 23);
      b[0] = 0x80;
      b[1] = 0xf3;
      return base64(b);
    },
    reference: "ValueError: unsupported pickle protocol: 243",
    reason: () => new RegExp(`^${LOAD}it is a pickle of protocol 243, newer than this Python \\(3\\.\\d+\\.\\d+\\) reads \\(ValueError: unsupported pickle protocol: 243\\)$`),
    traceback: true,
  },
  {
    name: "a pickle of a dict",
    payload: (ctx) => faulty(ctx, "notAProvider"),
    reference: "AttributeError: 'dict' object has no attribute 'configure'",
    reason: () => `${LOAD}it holds a builtins.dict, not a pulumi.dynamic.ResourceProvider (it has no configure method)`,
    traceback: false,
  },
  {
    name: "a pickle of an object of a class with no provider method",
    payload: (ctx) => faulty(ctx, "gadget"),
    reference: "AttributeError: 'Gadget' object has no attribute 'configure'",
    reason: () => `${LOAD}it holds a __main__.Gadget, not a pulumi.dynamic.ResourceProvider (it has no configure method)`,
    traceback: false,
  },
  {
    name: "a provider pickled by value that uses a module the program does not have",
    payload: (ctx) => faulty(ctx, "needsPhantom"),
    reference: "ModuleNotFoundError: No module named 'phantom_helper'",
    reason: (dir) => `${LOAD}${missingModule(dir, "phantom_helper")}`,
    traceback: true,
  },
  {
    name: "a provider class pickled by reference whose module is not on the program's path",
    payload: (ctx) => ctx.payload("local"),
    reference: "ModuleNotFoundError: No module named 'provider'",
    reason: (dir) => `${LOAD}its provider class provider.SimpleProvider could not be imported: ${missingModule(dir, "provider")}`,
    traceback: true,
  },
];

interface Sent {
  op: Operation;
  urn: string;
  o: Outcome;
}

const slug = (name: string) => name.replace(/\W+/g, "-");

export const pythonLoadErrors: Case[] = [
  ...LOAD_CASES.map((c) =>
    s.case<Sent[]>(slug(c.name), {
      title: `${c.name} [difference]: ours names the method, the resource and what is wrong, then the reference's traceback`,
      async ask(ctx) {
        const provider = await c.payload(ctx);
        const out: Sent[] = [];
        for (const op of METHODS) {
          const urn = ctx.urn(`${op.toLowerCase()}-${slug(c.name)}`);
          out.push({ op, urn, o: await send(ctx.client, op, urn, provider) });
        }
        return out;
      },
      // Where ours keeps the traceback, it ends in exactly the reference's exception lines.
      compare: c.traceback ? (sent) => sent.map(({ op, o }) => ({ op, final: finalLines(o.details) })) : undefined,
      expect(sent) {
        equal(sent.map((x) => x.op), [...METHODS], "the methods asked");
        for (const { op, o } of sent) equal(o.code, 2, `${op}: ${o.details}`);
      },
      difference: {
        doc: "docs/parity.md (a __provider that cannot be loaded is named with the method and resource)",
        reference(sent) {
          // UNKNOWN and a traceback whose frames name its RPC method, nothing more.
          for (const { op, urn, o } of sent) {
            matches(o.details, /^Traceback \(most recent call last\):\n/, `${op} reference`);
            contains(o.details, `in ${op}\n`, `${op} reference`);
            notContains(o.details, urn, `${op} reference`);
            const final = finalLines(o.details);
            if (c.reference.startsWith("/")) matches(final.join("\n"), new RegExp(c.reference.slice(1, -1)), `${op} reference`);
            else equal(final, [c.reference], `${op} reference`);
          }
        },
        ours(sent, ctx) {
          const programDir = realpathSync(path.join(ctx.programDir, BARE));
          // The method and resource first, then what was wrong.
          for (const { op, urn, o } of sent) {
            const [first, ...rest] = o.details.split("\n");
            const prefix = `${op} ${urn}: `;
            ok(first.startsWith(prefix), `${op} ours: ${first}`);
            const reason = c.reason(programDir);
            if (typeof reason === "string") equal(first.slice(prefix.length), reason, `${op} ours`);
            else matches(first.slice(prefix.length), reason, `${op} ours`);
            if (c.traceback) {
              equal(rest[0], "", `${op} ours: a blank line`);
              equal(rest[1], "Traceback (most recent call last):", `${op} ours`);
              const final = finalLines(rest.join("\n"));
              if (c.reference.startsWith("/")) matches(final.join("\n"), new RegExp(c.reference.slice(1, -1)), `${op} ours: the traceback's exception lines`);
              else equal(final, [c.reference], `${op} ours: the traceback's exception lines`);
            } else {
              equal(rest, [], `${op} ours`);
            }
          }
        },
      },
    }),
  ),

  s.case<Outcome>("still-serving", {
    title: "after every one of them, both still serve a provider that loads",
    ask: async (ctx) => ctx.client.create({ urn: ctx.urn("fine"), properties: { __provider: await ctx.payload("minimal") } }),
    compare: (o) => o.view,
    expect: (o) => equal(o.code, 0, o.details),
  }),
];
