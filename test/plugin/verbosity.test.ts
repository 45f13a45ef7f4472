// What the host writes of its own at each -v level (docs/debugging.md, "What -v shows"): each
// plugin started as the engine starts it with `pulumi up --logflow -v=N` (the flag, then the
// engine address of a stand-in engine that takes its logs), asked what a deployment asks
// (Handshake, GetPluginInfo, CheckConfig, Configure, Check, Create), then stopped as the engine
// stops it (SIGINT to its group). At -v=1 the one line the README promises, the start line; the
// routine answers and the workers' life only at higher levels.
import { expect } from "chai";
import type { ProviderClient } from "../../src/conformance/client.js";
import { FakeEngine } from "../helpers/fake-engine.js";
import { nodeProvider, pythonProvider } from "../helpers/payloads.js";
import { Plugin } from "../helpers/plugin.js";

type Language = "nodejs" | "python";

/** What the engine asks of a dynamic provider plugin for one new resource. */
async function deployment(client: ProviderClient, language: Language): Promise<void> {
  const sdk = client.sdk;
  const handshake = new sdk.provider.ProviderHandshakeRequest();
  handshake.setEngineAddress("127.0.0.1:1");
  // Pulumi's plugins have no Handshake and no CheckConfig: the engine takes UNIMPLEMENTED as "go on".
  expect((await client.call("handshake", handshake)).code).to.equal(12);
  expect((await client.getPluginInfo()).code).to.equal(0);
  const checkConfig = new sdk.provider.CheckRequest();
  checkConfig.setUrn("urn:pulumi:dev::proj::pulumi:providers:pulumi-" + language + "::default");
  expect((await client.call("checkConfig", checkConfig)).code).to.equal(12);
  expect((await client.configure({})).code).to.equal(0);
  const type = language === "nodejs" ? "pulumi-nodejs:dynamic:Resource" : "pulumi-python:dynamic:Resource";
  const urn = `urn:pulumi:dev::proj::${type}::r`;
  const provider = language === "nodejs" ? await nodeProvider("createOnly") : pythonProvider("minimal");
  const news = { __provider: provider, a: 1 };
  const checked = await client.check({ urn, news });
  expect(checked.code, checked.details).to.equal(0);
  const created = await client.create({ urn, properties: news });
  expect(created.code, created.details).to.equal(0);
}

/** The host's own stderr lines (`pulumi-dynamic-host: …`) of one plugin run at -v=`level`. */
async function ownLines(language: Language, level: number): Promise<string[]> {
  const engine = await FakeEngine.start({ health: true });
  try {
    const p = await Plugin.launch("ours", { language, args: [`-v=${level}`, engine.address], env: { PULUMI_DYNAMIC_HOST_PRELOAD: "0" } });
    try {
      await deployment(p.client, language);
    } finally {
      await p.stop();
    }
    return p.stderr.split("\n").filter((l) => l.startsWith("pulumi-dynamic-host: "));
  } finally {
    engine.stop();
  }
}

describe("what the host writes at each -v level", function () {
  this.timeout(120_000);

  for (const language of ["nodejs", "python"] as const) {
    describe(`pulumi-resource-pulumi-${language}`, function () {
      it("-v=1: exactly one line of its own, the start line the README promises", async function () {
        const lines = await ownLines(language, 1);
        expect(lines).to.have.length(1, lines.join("\n"));
        expect(lines[0]).to.match(new RegExp(`^pulumi-dynamic-host: pulumi-resource-pulumi-${language} serving on 127\\.0\\.0\\.1:\\d+ \\(cwd /.*\\)$`));
      });

      it("-v=2: the process's life too (why it stops; for Python, its interpreter and workers), no routine answer", async function () {
        const lines = await ownLines(language, 2);
        expect(lines.length, lines.join("\n")).to.be.greaterThan(1);
        expect(lines.some((l) => l.includes("stopping: SIGINT")), lines.join("\n")).to.equal(true);
        if (language === "python") expect(lines.some((l) => / ready: pid \d+/.test(l)), lines.join("\n")).to.equal(true);
        expect(lines.filter((l) => / (ok|failed) in \d+ ms/.test(l))).to.deep.equal([]);
      });

      it("-v=3: every request, the routine UNIMPLEMENTED answers (Handshake, CheckConfig) included", async function () {
        const lines = await ownLines(language, 3);
        for (const rpc of ["Handshake failed", "GetPluginInfo ok", "CheckConfig failed", "Configure ok", "Check ok", "Create ok"]) {
          expect(lines.some((l) => l.startsWith(`pulumi-dynamic-host: ${rpc} in `)), `${rpc} in:\n${lines.join("\n")}`).to.equal(true);
        }
      });
    });
  }
});
