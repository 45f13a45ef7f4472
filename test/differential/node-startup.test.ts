// Spec §9 rows about starting, negotiating and refusing: sent to the Node
// reference and to our pulumi-resource-pulumi-nodejs, answers compared.
import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { launchPair, Plugin, type Plugin as P } from "../helpers/plugin.js";
import { NODE_PROGRAM, OUR_NODE_PLUGIN, REFERENCE_NODE_PLUGIN } from "../helpers/paths.js";

describe("differential (Node): start-up and protocol surface", function () {
  let ours: P;
  let ref: P;

  before(async function () {
    ({ ours, ref } = await launchPair());
  });

  after(async function () {
    await Promise.all([ours?.stop(), ref?.stop()]);
  });

  it("1 start_port_line: flags are accepted; the port is the first and only stdout line", async function () {
    const args = ["--logtostderr", "-v=9", "--tracing", "x", "127.0.0.1:1"];
    const pair = await Promise.all([Plugin.launch("ours", { args }), Plugin.launch("reference", { args })]);
    for (const p of pair) {
      expect(p.stdout[0]).to.match(/^\d+$/);
      expect((await p.client.getPluginInfo()).code).to.equal(0);
    }
    const [o, r] = await Promise.all(pair.map((p) => p.stop()));
    expect(pair[0].userStdout).to.deep.equal(pair[1].userStdout).and.deep.equal([]);
    expect(r.signal ?? r.code).to.not.equal(undefined);
    expect(o.signal ?? o.code).to.not.equal(undefined);
    // The reference prints nothing; we print only our own log lines, and only because -v was asked for.
    expect(pair[1].stderr).to.equal("");
    for (const line of pair[0].stderr.split("\n").filter(Boolean)) expect(line).to.match(/^pulumi-dynamic-host: /);
  });

  it("1b no flags: nothing at all on stderr, nothing after the port on stdout", async function () {
    const pair = await Promise.all([Plugin.launch("ours"), Plugin.launch("reference")]);
    await Promise.all(pair.map((p) => p.client.getPluginInfo()));
    await Promise.all(pair.map((p) => p.stop()));
    for (const p of pair) {
      expect(p.stderr, p.kind).to.equal("");
      expect(p.userStdout, p.kind).to.deep.equal([]);
    }
  });

  it("2 start_no_args: exit 255 with `fatal: Missing <engine> address`", function () {
    const o = spawnSync(OUR_NODE_PLUGIN, [], { cwd: NODE_PROGRAM, encoding: "utf8" });
    const r = spawnSync(process.execPath, [REFERENCE_NODE_PLUGIN], { cwd: NODE_PROGRAM, encoding: "utf8" });
    expect(r.status).to.equal(255);
    expect(o.status).to.equal(r.status);
    expect(o.stderr).to.equal(r.stderr).and.equal("fatal: Missing <engine> address\n");
    expect(o.stdout).to.equal(r.stdout).and.equal("");
  });

  it("7 getplugininfo_version: the program's @pulumi/pulumi version", async function () {
    const [o, r] = await Promise.all([ours.client.getPluginInfo(), ref.client.getPluginInfo()]);
    expect(o).to.deep.equal(r);
    expect(o.view.version).to.match(/^3\.\d+\.\d+$/);
  });

  it("8 handshake_unimplemented", async function () {
    const [o, r] = await Promise.all([ours.client.refused("handshake"), ref.client.refused("handshake")]);
    expect(o).to.deep.equal(r);
    expect(o).to.deep.equal({ code: 12, details: "Handshake is not implemented by the dynamic provider" });
  });

  it("9 configure_empty_response: zero bytes", async function () {
    const [o, r] = await Promise.all([ours.client.configure({ "proj:a": "1" }), ref.client.configure({ "proj:a": "1" })]);
    expect(o).to.deep.equal(r);
    expect(o.bytes).to.equal("");
  });

  for (const rpc of ["parameterize", "getSchema", "checkConfig", "diffConfig", "call", "construct", "attach", "getMapping", "getMappings"]) {
    it(`10 unimplemented_matrix: ${rpc}`, async function () {
      const [o, r] = await Promise.all([ours.client.refused(rpc), ref.client.refused(rpc)]);
      expect(o).to.deep.equal(r);
      expect(o.code).to.equal(12);
    });
  }

  it("11 invoke_error: UNKNOWN `unknown function <tok>`", async function () {
    const [o, r] = await Promise.all([ours.client.invoke("pkg:index:fn"), ref.client.invoke("pkg:index:fn")]);
    expect(o).to.deep.equal(r);
    expect(o).to.deep.equal({ code: 2, details: "unknown function pkg:index:fn" });
  });

  it("12 list_stream_unimplemented", async function () {
    const [o, r] = await Promise.all([ours.client.list(), ref.client.list()]);
    expect(o).to.deep.equal(r);
    expect(o).to.deep.equal({ code: 12, details: "List is not implemented by the dynamic provider" });
  });

  it("14 unknown_method: UNIMPLEMENTED", async function () {
    const [o, r] = await Promise.all([ours.client.unknownMethod(), ref.client.unknownMethod()]);
    expect(o.code).to.equal(12);
    expect(o).to.deep.equal(r);
  });
});
