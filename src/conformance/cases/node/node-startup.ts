// Spec §9 rows about starting, negotiating and refusing (Node).
import { equal, matches, session, type Case } from "../../case.js";
import type { Outcome } from "../../client.js";
import { parameterizeDifference } from "../parameterize.js";

const s = session({ id: "node/startup", language: "nodejs", suite: ["differential (Node): start-up and protocol surface"] });

interface Run {
  portLine: string;
  info: number;
  userStdout: string[];
  stderr: string;
}

/** A plugin of the case's own, asked GetPluginInfo and stopped as the engine stops it. */
async function startAndStop(ctx: Parameters<Case["ask"]>[0], args?: string[]): Promise<Run> {
  const p = await ctx.launch(args ? { args } : {});
  const info = (await p.client.getPluginInfo()).code;
  await p.stop();
  return { portLine: p.stdout[0], info, userStdout: p.userStdout, stderr: p.stderr };
}

const UNIMPLEMENTED = ["getSchema", "checkConfig", "diffConfig", "call", "construct", "attach", "getMapping", "getMappings"];

export const nodeStartup: Case[] = [
  s.case<Run>("1-start-port-line", {
    title: "1 start_port_line: flags are accepted; the port is the first and only stdout line",
    spec: ["1"],
    ask: (ctx) => startAndStop(ctx, ["--logtostderr", "-v=9", "--tracing", "x", "127.0.0.1:1"]),
    compare: (r) => ({ info: r.info, userStdout: r.userStdout }),
    expect(r) {
      matches(r.portLine, /^\d+$/, "the first stdout line");
      equal(r.info, 0, "GetPluginInfo's status");
      equal(r.userStdout, [], "stdout after the port line");
    },
    difference: {
      doc: "docs/parity.md#both-languages (-v=N / --logtostderr)",
      // We print only our own log lines, and only because -v was asked for.
      ours(r) {
        for (const line of r.stderr.split("\n").filter(Boolean)) matches(line, /^pulumi-dynamic-host: /, "a stderr line");
      },
      reference: (r) => equal(r.stderr, "", "stderr"),
    },
  }),

  s.case<Run>("1b-no-flags", {
    title: "1b no flags: nothing at all on stderr, nothing after the port on stdout",
    spec: ["1"],
    ask: (ctx) => startAndStop(ctx),
    compare: (r) => ({ ...r, portLine: "(a port)" }),
    expect(r) {
      equal(r.stderr, "", "stderr");
      equal(r.userStdout, [], "stdout after the port line");
    },
  }),

  s.case("2-start-no-args", {
    title: "2 start_no_args: exit 255 with `fatal: Missing <engine> address`",
    spec: ["2"],
    ask: (ctx) => ctx.run([]),
    expect: (r) => equal(r, { status: 255, signal: null, stdout: "", stderr: "fatal: Missing <engine> address\n" }),
  }),

  s.case<Outcome>("7-getplugininfo-version", {
    title: "7 getplugininfo_version: the program's @pulumi/pulumi version",
    spec: ["7"],
    ask: (ctx) => ctx.client.getPluginInfo(),
    expect: (o) => matches(o.view?.version, /^3\.\d+\.\d+$/, "version"),
  }),

  s.case<Outcome>("8-handshake-unimplemented", {
    title: "8 handshake_unimplemented",
    spec: ["8"],
    ask: (ctx) => ctx.client.refused("handshake"),
    expect: (o) => equal(o, { code: 12, details: "Handshake is not implemented by the dynamic provider" }),
  }),

  s.case<Outcome>("9-configure-empty-response", {
    title: "9 configure_empty_response: zero bytes",
    spec: ["9"],
    ask: (ctx) => ctx.client.configure({ "proj:a": "1" }),
    expect(o) {
      equal(o.code, 0, "status");
      equal(o.bytes, "", "response bytes");
    },
  }),

  ...UNIMPLEMENTED.map((rpc) =>
    s.case<Outcome>(`10-unimplemented-${rpc}`, {
      title: `10 unimplemented_matrix: ${rpc}`,
      spec: ["10"],
      ask: (ctx) => ctx.client.refused(rpc),
      expect: (o) => equal(o.code, 12, "status"),
    }),
  ),

  s.case<Outcome>("10-unimplemented-parameterize", {
    title: "10 unimplemented_matrix: parameterize",
    spec: ["10"],
    ask: (ctx) => ctx.client.refused("parameterize"),
    difference: parameterizeDifference(),
  }),

  s.case<Outcome>("11-invoke-error", {
    title: "11 invoke_error: UNKNOWN `unknown function <tok>`",
    spec: ["11"],
    ask: (ctx) => ctx.client.invoke("pkg:index:fn"),
    expect: (o) => equal(o, { code: 2, details: "unknown function pkg:index:fn" }),
  }),

  s.case<Outcome>("12-list-stream-unimplemented", {
    title: "12 list_stream_unimplemented",
    spec: ["12"],
    ask: (ctx) => ctx.client.list(),
    expect: (o) => equal(o, { code: 12, details: "List is not implemented by the dynamic provider" }),
  }),

  s.case<Outcome>("14-unknown-method", {
    title: "14 unknown_method: UNIMPLEMENTED",
    spec: ["14"],
    ask: (ctx) => ctx.client.unknownMethod(),
    expect: (o) => equal(o.code, 12, "status"),
  }),
];
