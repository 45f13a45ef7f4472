// Smoke test of the differential flow for resource RPCs with SDK-made payloads.
import { expect } from "chai";
import { launchPair, type Plugin } from "../helpers/plugin.js";
import { nodeProvider } from "../helpers/payloads.js";
import { nodeUrn } from "../helpers/client.js";

describe("differential (Node): resource RPC smoke", function () {
  let ours: Plugin;
  let ref: Plugin;
  let scripted: string;

  before(async function () {
    scripted = await nodeProvider("scripted");
    ({ ours, ref } = await launchPair());
  });
  after(async function () {
    await Promise.all([ours?.stop(), ref?.stop()]);
  });

  it("create echoes, check passes through, and stderr matches on a throw", async function () {
    const urn = nodeUrn("r1");
    const props = { __provider: scripted, act: "echo", b: 1, a: "x", n: null };
    const [o, r] = await Promise.all([ours.client.create({ urn, properties: props }), ref.client.create({ urn, properties: props })]);
    expect(o).to.deep.equal(r);
    expect(o.code).to.equal(0);
    const news = { __provider: scripted, act: "throw", msg: "boom" };
    const [oc, rc] = await Promise.all([ours.client.check({ urn, news }), ref.client.check({ urn, news })]);
    expect(oc).to.deep.equal(rc);
    await Promise.all([ours, ref].map((p) => p.until(() => p.stderr.includes("Error: boom: Error: boom"), "the echoed error")));
    expect(ours.stderr.split("\n")[0]).to.equal(ref.stderr.split("\n")[0]);
  });
});
