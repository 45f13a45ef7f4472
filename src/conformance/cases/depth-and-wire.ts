// Values nested deep and requests with fields of the wrong wire type, both
// languages. Requests are written byte by byte (wire-bytes.ts). Python's calls
// go through grpcio (scenarios/raw_client.py, in the interpreter that makes the
// payloads): the Python reference answers a RecursionError with a traceback of
// 170 to 260 KB, which a grpc-js client never receives; Node's through grpc-js.
//
// What the references do (pulumi 3.270.0, Node 20, Python 3.11), and ours:
// - Node reference: google-protobuf decodes on the stack, so how deep it goes
//   depends on how much of it V8 has optimized yet. Objects nested past about
//   1090 levels in a fresh process (1124 once warm; alternating objects and
//   lists 1436 warm; lists alone 1800 fresh, 2217 warm) fail as INTERNAL
//   "Error deserializing request" (or "Error serializing response" on the way
//   back), naming nothing. Ours carries 1500 levels of any shape and refuses deeper values
//   as INVALID_ARGUMENT naming method, resource, bag, property and depth.
// - Python reference: the SDK's recursion carries objects to 490 levels
//   (lists to 326) and answers UNKNOWN with a RecursionError traceback
//   beyond; past 4500 its protobuf overflows the C stack and the plugin dies.
//   Ours refuses past 490, a level of lists counting as 1.5 (so lists past
//   326), before the worker sees the value.
// - A field of the wrong wire type: the Node reference's google-protobuf
//   refuses it (INTERNAL, naming nothing), the Python reference's upb drops it
//   and goes on without it. Ours refuses it naming the field.
import { EncodedStruct } from "../../host/wire/struct-bytes.js";
import { WireCursor } from "../../host/wire/wire-cursor.js";
import { diedOf, equal, includes, matches, ok, session, type Case, type CaseContext, type Language, type LaunchedPlugin } from "../case.js";
import { pythonPayloadsFor } from "../payloads-python.js";
import { call, callFromPython, entry, len, nestedValue, numberValue, stringValue, tag, text, varint, type RawOutcome } from "../wire-bytes.js";

const OK = 0;
const UNKNOWN = 2;
const INVALID_ARGUMENT = 3;
const INTERNAL = 13;
const UNAVAILABLE = 14;
const DOC = "docs/parity.md#both-languages (property values nested deep; a field of the wrong wire type)";

type Shape = "objects" | "lists" | "mixed";
type Raw = RawOutcome & { detailsLength?: number };
/** What a raw call observed, with the response's bytes as base64 (comparable, printable). */
interface Seen {
  code: number;
  details: string;
  detailsLength: number;
  response?: string;
}

function seen(r: Raw): Seen {
  return { code: r.code, details: r.details, detailsLength: r.detailsLength ?? r.details.length, response: r.response?.toString("base64") };
}

/** One Create with the request's bytes as they are, to `p` (default: the session's plugin). */
async function create(ctx: CaseContext, body: Buffer, p: LaunchedPlugin = ctx.plugin): Promise<Seen> {
  if (ctx.language === "nodejs") return seen(await call(p.port, "Create", body, ctx.client.sdk));
  return seen(await callFromPython(pythonPayloadsFor(ctx.program).python.interpreter.python, p.port, "Create", body));
}

/** The entry of property "o" in a CreateResponse's properties, as it came back (entries may come in any order), base64. */
function outputO(response: string | undefined): string | undefined {
  if (response === undefined) return undefined;
  const bytes = Buffer.from(response, "base64");
  const cursor = new WireCursor(bytes, 0, bytes.length);
  while (!cursor.done) {
    const t = cursor.tag();
    if (t !== ((2 << 3) | 2)) {
      cursor.skip(t);
      continue;
    }
    const [start, end] = cursor.delimited();
    return new EncodedStruct(bytes.subarray(start, end)).entry("o")?.toString("base64");
  }
  return undefined;
}

const okCode = (r: Seen, what = "status") => equal(r.code, OK, `${what}: ${r.details.slice(0, 500)}`);

function casesFor(language: Language): Case[] {
  const limit = language === "nodejs" ? 1500 : 490;
  const urn = (name: string) => `urn:pulumi:dev::proj::pulumi-${language}:dynamic:Resource::${name}`;
  const tooDeep = (name: string, depth: number) =>
    `Create ${urn(name)}: the request's properties has property "o" nested ${depth} levels deep; values nested more than ` +
    `${limit} levels (objects and lists within one another) are refused before any provider code sees them`;
  const s = session({
    id: `${language === "nodejs" ? "node" : "python"}/depth-and-wire`,
    language,
    suite: [`differential (${language}): values nested deep, and fields of the wrong wire type`],
  });
  const createBody = async (ctx: CaseContext, name: string, ...entries: Buffer[]) =>
    Buffer.concat([text(1, urn(name)), len(2, Buffer.concat([entry("__provider", stringValue(await ctx.payload("scripted"))), ...entries]))]);

  const cases: Case[] = [];
  const carried: [number, Shape][] =
    language === "nodejs"
      ? [
          [100, "mixed"],
          [1000, "objects"],
          [1000, "mixed"],
        ]
      : [
          [100, "mixed"],
          [490, "objects"],
          [320, "lists"],
        ];
  for (const [depth, shape] of carried) {
    cases.push(
      s.case<Seen>(`carried-${depth}-${shape}`, {
        title: `${depth} levels (${shape}): both carry the value through Create, and it comes back the same`,
        ask: async (ctx) => create(ctx, await createBody(ctx, `d${depth}`, entry("o", nestedValue(depth, shape)))),
        compare: (r) => outputO(r.response),
        expect(r) {
          okCode(r);
          equal(outputO(r.response), entry("o", nestedValue(depth, shape)).toString("base64"), "the value that came back");
        },
      }),
    );
  }

  if (language === "nodejs") {
    cases.push(
      s.case<Seen>("at-limit-objects", {
        title: `[difference] ${limit} levels of objects: ours carries them; the reference answers INTERNAL naming nothing`,
        ask: async (ctx) => create(ctx, await createBody(ctx, "at-limit", entry("o", nestedValue(limit, "objects")))),
        difference: { doc: DOC, ours: (r) => okCode(r), reference: (r) => includes(r, { code: INTERNAL, details: "Error deserializing request" }) },
      }),
      ...[limit + 1, 10_000].map((depth) =>
        s.case<Seen>(`past-limit-${depth}`, {
          title: `[difference] ${depth} levels: ours INVALID_ARGUMENT naming where; the reference INTERNAL naming nothing`,
          ask: async (ctx) => create(ctx, await createBody(ctx, `deep${depth}`, entry("o", nestedValue(depth, "objects")))),
          difference: {
            doc: DOC,
            ours: (r) => includes(r, { code: INVALID_ARGUMENT, details: tooDeep(`deep${depth}`, depth) }),
            reference: (r) => includes(r, { code: INTERNAL, details: "Error deserializing request" }),
          },
        }),
      ),
      s.case<Seen>("lists-1700", {
        title:
          "[difference] 1700 levels of lists alone: the reference carries them (google-protobuf spends less stack on lists); ours refuses past 1500 of any shape",
        ask: async (ctx) => create(ctx, await createBody(ctx, "lists1700", entry("o", nestedValue(1700, "lists")))),
        difference: { doc: DOC, ours: (r) => includes(r, { code: INVALID_ARGUMENT, details: tooDeep("lists1700", 1700) }), reference: (r) => okCode(r) },
      }),
      s.case<Seen>("circular-outs", {
        title: "[difference] a provider returning a circular value: ours names the path; the reference sends V8's stack overflow",
        ask: async (ctx) => create(ctx, await createBody(ctx, "circular", entry("act", stringValue("circularOuts")))),
        difference: {
          doc: DOC,
          ours(r) {
            equal(r.code, UNKNOWN, "status");
            matches(r.details, /^Create \S+: the dynamic provider's create returned outs\.o\.self\.self.*…, a value nested more than 1500 levels deep/);
          },
          reference: (r) => includes(r, { code: UNKNOWN, details: "Maximum call stack size exceeded" }),
        },
      }),
      s.case<Seen>("outs-5000", {
        title: "[difference] a provider returning a value nested 5000 levels: ours names the path; the reference a stack overflow, naming nothing",
        ask: async (ctx) => create(ctx, await createBody(ctx, "outs5000", entry("act", stringValue("deepOuts")), entry("levels", numberValue(5000)))),
        difference: {
          doc: DOC,
          ours(r) {
            equal(r.code, UNKNOWN, "status");
            matches(r.details, /^Create \S+: the dynamic provider's create returned outs\.o\.d\.d.*…, a value nested more than 1500 levels deep/);
          },
          // Where it overflows depends on how far V8 has optimized google-protobuf: converting, or serializing.
          reference: (r) => ok([`${UNKNOWN} Maximum call stack size exceeded`, `${INTERNAL} Error serializing response`].includes(`${r.code} ${r.details}`), `${r.code} ${r.details}`),
        },
      }),
    );
  } else {
    cases.push(
      s.case<Seen>("past-limit", {
        title: `[difference] ${limit + 1} levels: ours INVALID_ARGUMENT naming where; the reference a RecursionError traceback of hundreds of KB`,
        ask: async (ctx) => create(ctx, await createBody(ctx, "past-limit", entry("o", nestedValue(limit + 1, "objects")))),
        difference: {
          doc: DOC,
          ours: (r) => includes(r, { code: INVALID_ARGUMENT, details: tooDeep("past-limit", limit + 1) }),
          reference(r) {
            equal(r.code, UNKNOWN, "status");
            ok(r.detailsLength > 100_000, `details of ${r.detailsLength} characters`);
            matches(r.details, /RecursionError: maximum recursion depth exceeded[^\n]*\n$/);
          },
        },
      }),
      s.case<Seen>("lists-400", {
        title: "[difference] 400 levels of lists (past what the SDK converts): ours INVALID_ARGUMENT naming where; the reference the SDK's RecursionError",
        ask: async (ctx) => create(ctx, await createBody(ctx, "lists400", entry("o", nestedValue(400, "lists")))),
        difference: {
          doc: DOC,
          ours: (r) =>
            includes(r, {
              code: INVALID_ARGUMENT,
              details:
                `Create ${urn("lists400")}: the request's properties has property "o" nested 400 levels deep, 400 of them lists; values nested ` +
                `more than 490 levels (objects and lists within one another, a level of lists counting as 1.5: the Python SDK recurses deeper ` +
                `through lists) are refused before any provider code sees them`,
            }),
          reference(r) {
            equal(r.code, UNKNOWN, "status");
            matches(r.details, /RecursionError: maximum recursion depth exceeded[^\n]*\n$/);
          },
        },
      }),
      s.case<{ r: Seen; sameProcesses: boolean; exit?: unknown }>("deep-10000", {
        title: "[difference] 10 000 levels: ours INVALID_ARGUMENT, its worker untouched; the reference's protobuf overflows the C stack and the plugin dies",
        async ask(ctx) {
          // A plugin of the case's own (the reference's dies), warmed by a create so that its workers are up.
          const p = await ctx.launch();
          const warm = await create(ctx, await createBody(ctx, "warm", entry("a", numberValue(1))), p);
          if (warm.code !== OK) throw new Error(`the warming create failed: ${warm.details}`);
          const before = p.groupPids();
          const r = await create(ctx, await createBody(ctx, "deep10000", entry("o", nestedValue(10_000, "objects"))), p);
          if (r.code === UNAVAILABLE) return { r, sameProcesses: false, exit: await p.exited };
          return { r, sameProcesses: JSON.stringify(p.groupPids()) === JSON.stringify(before) };
        },
        difference: {
          doc: DOC,
          ours({ r, sameProcesses }) {
            includes(r, { code: INVALID_ARGUMENT, details: tooDeep("deep10000", 10_000) });
            ok(sameProcesses, "the plugin's processes are the same after the request");
          },
          reference({ r, exit }) {
            equal(r.code, UNAVAILABLE, "status");
            // Killed by SIGSEGV; through Pulumi's Python launcher script (an sh that does not exec), sh's exit 139.
            ok(diedOf(exit as { code: number | null; signal: string | null }, "SIGSEGV"), `the plugin died of SIGSEGV (or its wrapper exited 139); it ended ${JSON.stringify(exit)}`);
          },
        },
      }),
    );
  }

  cases.push(
    s.case<Seen>("urn-as-varint", {
      title: "[difference] a urn sent as a varint: ours INVALID_ARGUMENT naming the field; the references refuse it naming nothing (Node) or drop it (Python)",
      async ask(ctx) {
        const provider = await ctx.payload("scripted");
        return create(ctx, Buffer.concat([tag(1, 0), varint(7), len(2, Buffer.concat([entry("__provider", stringValue(provider)), entry("a", numberValue(1))]))]));
      },
      difference: {
        doc: DOC,
        ours: (r) =>
          includes(r, {
            code: INVALID_ARGUMENT,
            details:
              "Create (no urn): the request is not a valid CreateRequest: CreateRequest.urn (field 1) has wire type 0 (varint) " +
              "instead of wire type 2 (length-delimited) at byte 0",
          }),
        reference: (r) => (language === "nodejs" ? includes(r, { code: INTERNAL, details: "Error deserializing request" }) : okCode(r)),
      },
    }),
    s.case<{ r: Seen; providerEntryLength: number; keys?: string[] }>("key-as-varint", {
      title: "[difference] a property's key sent as a varint: ours INVALID_ARGUMENT naming it; the Python reference loses the property without a word",
      async ask(ctx) {
        const badEntry = len(1, Buffer.concat([tag(1, 0), varint(7), len(2, numberValue(1))]));
        const r = await create(ctx, await createBody(ctx, "bad-key", badEntry));
        const providerEntryLength = entry("__provider", stringValue(await ctx.payload("scripted"))).length;
        if (r.code !== OK || r.response === undefined) return { r, providerEntryLength };
        const pb = ctx.client.sdk;
        const outs = pb.provider.CreateResponse.deserializeBinary(new Uint8Array(Buffer.from(r.response, "base64"))).getProperties().toJavaScript();
        return { r, providerEntryLength, keys: Object.keys(outs) };
      },
      difference: {
        doc: DOC,
        ours: ({ r, providerEntryLength }) =>
          includes(r, {
            code: INVALID_ARGUMENT,
            details:
              `Create ${urn("bad-key")}: the request's properties is not a valid encoded protobuf Struct: in property "": the key of ` +
              `an entry (field 1) has wire type 0 (varint) instead of wire type 2 (length-delimited) at byte ${providerEntryLength + 2}`,
          }),
        reference({ r, keys }) {
          if (language === "nodejs") includes(r, { code: INTERNAL, details: "Error deserializing request" });
          else {
            okCode(r);
            equal(keys, ["__provider"], "the properties that came back");
          }
        },
      },
    }),
    s.case<Seen>("unknown-fields", {
      title: "unknown fields of every wire type, groups among them: all skip them alike",
      async ask(ctx) {
        const provider = await ctx.payload("scripted");
        const unknown = Buffer.concat([tag(99, 0), varint(1), tag(98, 3), tag(1, 5), Buffer.alloc(4), tag(98, 4), tag(97, 1), Buffer.alloc(8)]);
        return create(
          ctx,
          Buffer.concat([unknown, text(1, urn("unknown")), len(2, Buffer.concat([entry("__provider", stringValue(provider)), unknown, entry("a", numberValue(1))])), unknown]),
        );
      },
      compare: (r) => r.code,
      expect: (r) => okCode(r),
    }),
    s.case<Seen>("cut-short", {
      title: "[difference] a request cut short: ours INVALID_ARGUMENT naming the field; the references INTERNAL naming nothing",
      ask: async (ctx) => create(ctx, (await createBody(ctx, "cut")).subarray(0, 80)),
      difference: {
        doc: DOC,
        ours(r) {
          equal(r.code, INVALID_ARGUMENT, "status");
          matches(r.details, new RegExp(`^Create ${urn("cut")}: the request is not a valid CreateRequest: in CreateRequest.properties \\(field 2\\): a field of \\d+ bytes runs past the end at byte \\d+$`));
        },
        reference: (r) => equal(r.code, INTERNAL, "status"),
      },
    }),
    s.case<{ r: Seen; stdout: number; stderr: string }>("still-serving", {
      title: "each plugin is still serving, and ours printed nothing",
      async ask(ctx) {
        const r = await create(ctx, await createBody(ctx, "after", entry("a", numberValue(1))));
        return { r, stdout: ctx.plugin.stdout.length, stderr: ctx.plugin.stderr };
      },
      expect: ({ r }) => okCode(r),
      // The references may print what they met on the way (tracebacks, warnings); we print nothing.
      difference: {
        doc: DOC,
        ours({ stdout, stderr }) {
          equal(stdout, 1, "stdout lines (the port's only)");
          equal(stderr, "", "stderr");
        },
        reference: () => undefined,
      },
    }),
  );
  return cases;
}

export const depthAndWire: Case[] = [...casesFor("nodejs"), ...casesFor("python")];
