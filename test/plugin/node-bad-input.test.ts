// Bad input to our pulumi-resource-pulumi-nodejs: every case gets a clear
// error (exact code and details), the host keeps serving (a good request right
// after succeeds), and nothing is printed: host-detected bad input is answered,
// never echoed, so stdout holds only the port line and stderr stays empty.
//
// The reference's answer is shown for contrast where it differs; those are the
// deliberate differences: a missing or non-string `__provider`, provider texts
// that fail to load, and results the protocol cannot carry are named with the
// resource, the method and what to do, instead of a bare V8/protobuf message
// (or, for the reference, a silently empty id).
import { expect } from "chai";
import fs from "node:fs";
import { nodeUrn, type Outcome } from "../helpers/client.js";
import { NODE_PROGRAM, REPO } from "../helpers/paths.js";
import { nodeProvider } from "../helpers/payloads.js";
import { launchPair, type Plugin } from "../helpers/plugin.js";

const MISSING = "definitely-not-installed-module-xyz";

describe("our Node plugin: bad input is answered clearly, without crashing or printing", function () {
  let ours: Plugin;
  let ref: Plugin;
  let scripted: string;
  let cwd: string;
  let stdoutMark = 0;
  let stderrMark = 0;
  let sentinel = 0;

  before(async function () {
    scripted = await nodeProvider("scripted");
    cwd = fs.realpathSync(NODE_PROGRAM);
    ({ ours, ref } = await launchPair());
  });

  after(async function () {
    await Promise.all([ours?.stop(), ref?.stop()]);
  });

  beforeEach(function () {
    stdoutMark = ours.stdout.length;
    stderrMark = ours.stderr.length;
  });

  /**
   * The host survived and printed nothing for the bad request: a good create
   * succeeds, then a create that writes a marker line to stdout and to stderr;
   * once the markers arrive, they must be the only output since the test began
   * (each stream is ordered, so an echo of the bad request would come first).
   */
  afterEach(async function () {
    if (this.currentTest?.state !== "passed") return;
    const good = await ours.client.create({ urn: nodeUrn("good"), properties: { __provider: scripted, act: "noOuts" } });
    expect(good.code, good.details).to.equal(0);
    expect(good.view).to.deep.equal({ id: "no-outs", properties: { __provider: scripted } });
    const msg = `marker ${++sentinel}`;
    const logged = await ours.client.create({ urn: nodeUrn("marker"), properties: { __provider: scripted, act: "log", msg } });
    expect(logged.code, logged.details).to.equal(0);
    await ours.until(() => ours.stdout.length > stdoutMark && ours.stderr.endsWith(`stderr from create ${msg}\n`), "the marker lines");
    expect(ours.stdout.slice(stdoutMark)).to.deep.equal([`stdout from create ${msg}`]);
    expect(ours.stderr.slice(stderrMark)).to.equal(`stderr from create ${msg}\n`);
    expect(ours.stdout[0]).to.match(/^\d+$/);
    expect(ours.child.exitCode).to.equal(null);
  });

  const urn = nodeUrn("bad");
  const create = (p: Plugin, properties: Record<string, unknown>, at = urn) => p.client.create({ urn: at, properties });
  const check = (p: Plugin, news: Record<string, unknown>, at = urn) => p.client.check({ urn: at, news });
  const error = (code: number, details: string): Outcome => ({ code, details });
  const noProviderText = (bag: string, problem: string, op = "Create") =>
    `${op} ${urn}: the request's ${bag} ${problem} "__provider" property, so the dynamic provider cannot be loaded; ` +
    `__provider must be the serialized provider the SDK writes into every dynamic resource`;

  // ------------------------------------------------------------- __provider

  it("no __provider (Create): UNKNOWN naming the resource, the bag and the key", async function () {
    expect(await create(ours, { a: 1 })).to.deep.equal(error(2, noProviderText("properties", "has no")));
    expect(await create(ref, { a: 1 })).to.deep.equal(error(2, "code must be a string, not undefined"));
  });

  it("no __provider (Check): the same clear error, and unlike a user error in Check, not echoed to stderr", async function () {
    expect(await check(ours, { a: 1 })).to.deep.equal(error(2, noProviderText("news", "has no", "Check")));
  });

  it("non-string __provider (a number): UNKNOWN saying what the value is", async function () {
    expect(await create(ours, { __provider: 5 })).to.deep.equal(error(2, noProviderText("properties", "has a number as its")));
    expect(await create(ref, { __provider: 5 })).to.deep.equal(error(2, "code must be a string, not number"));
  });

  // ---------------------------------------------------------- load failures

  it("an empty or blank __provider (Create, and Read by its inputs): names __provider and what is wrong with it", async function () {
    expect(await create(ours, { __provider: "" })).to.deep.equal(error(2, `Create ${urn}: its __provider is an empty string, not the text @pulumi/pulumi's dynamic.Resource writes`));
    const read = await ours.client.read({ urn, id: "i1", inputs: { __provider: " \n" } });
    expect(read).to.deep.include(error(2, `Read ${urn}: its __provider is only whitespace, not the text @pulumi/pulumi's dynamic.Resource writes`));
  });

  it("syntax error in the provider text", async function () {
    // Not serializer output: a real serialized text with stray closing braces appended.
    const broken = `${scripted}\n}}}`;
    expect(await create(ours, { __provider: broken })).to.deep.equal(
      error(2, `Create ${urn}: the serialized provider is not valid JavaScript: SyntaxError: Unexpected token '}'`),
    );
    expect(await create(ref, { __provider: broken })).to.deep.equal(error(2, "Unexpected token '}'"));
  });

  it("provider text that throws while loading (Create, and Check where it is not echoed either)", async function () {
    // Not serializer output: a real serialized text with a throwing statement prepended.
    const throwing = `throw new Error("load boom");\n${scripted}`;
    const details = (op: string) => `${op} ${urn}: the serialized provider threw while loading: Error: load boom`;
    expect(await create(ours, { __provider: throwing })).to.deep.equal(error(2, details("Create")));
    // Nothing was cached: the same text fails the same way again.
    expect(await check(ours, { __provider: throwing })).to.deep.equal(error(2, details("Check")));
    expect(await create(ref, { __provider: throwing })).to.deep.equal(error(2, "load boom"));
  });

  it("provider members that are not functions: UNKNOWN naming the method and what it is, not echoed; a falsy one is no method, as upstream", async function () {
    // Not serializer output: a handler whose provider's methods are other values.
    const odd = "exports.handler = function () { return { create: 5, check: 'x', diff: null, read: [], update: {}, delete: true }; };";
    const notAFunction = (op: string, member: string, what: string) =>
      error(2, `${op} ${urn}: the dynamic provider's ${member} is ${what}, not a function; a dynamic provider's methods must be functions (or left out)`);
    expect(await create(ours, { __provider: odd })).to.deep.equal(notAFunction("Create", "create", "a number (5)"));
    expect(await check(ours, { __provider: odd })).to.deep.equal(notAFunction("Check", "check", 'a string ("x")'));
    const id = "i1";
    expect(await ours.client.read({ urn, id, properties: { __provider: odd } })).to.deep.include(notAFunction("Read", "read", "a list"));
    expect(await ours.client.update({ urn, id, olds: { __provider: odd }, news: { __provider: odd } })).to.deep.include(notAFunction("Update", "update", "an object"));
    expect(await ours.client.delete({ urn, id, properties: { __provider: odd } })).to.deep.include(notAFunction("Delete", "delete", "true"));
    const diff = await ours.client.diff({ urn, id, olds: { __provider: odd }, news: { __provider: odd } });
    expect(diff.code, diff.details).to.equal(0);
    // The reference calls them: V8's text, naming neither the resource nor what the member is (and echoed, in Check).
    expect(await create(ref, { __provider: odd })).to.deep.equal(error(2, "provider.create is not a function"));
  });

  it("a module that is not installed, required while the provider loads: names the module and the directory it was resolved from", async function () {
    // Not serializer output: a real serialized text with a require of a module nobody installed prepended.
    const text = `const missing = require("${MISSING}");\n${scripted}`;
    const cannotFind =
      `Cannot find module '${MISSING}' required by the dynamic provider: it was resolved from the program directory ` +
      `${cwd} (its node_modules and those of its parents); install ${MISSING} in the program's package, ${cwd} (npm install ${MISSING} there)`;
    expect(await check(ours, { __provider: text })).to.deep.equal(
      error(2, `Check ${urn}: the serialized provider threw while loading: Error: ${cannotFind}`),
    );
  });

  it("a module that is not installed, required inside create: names the module and the directory it was resolved from", async function () {
    const o = await create(ours, { __provider: scripted, act: "requireMissing" });
    expect(o).to.deep.equal(
      error(
        2,
        `Cannot find module '${MISSING}' required by the dynamic provider: it was resolved from the program directory ` +
          `${cwd} (its node_modules and those of its parents); install ${MISSING} in the program's package, ${cwd} (npm install ${MISSING} there)`,
      ),
    );
    // The reference's require stack names its own file and an empty entry for the provider.
    expect(await create(ref, { __provider: scripted, act: "requireMissing" })).to.deep.equal(
      error(2, `Cannot find module '${MISSING}'\nRequire stack:\n- \n- ${REPO}node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js`),
    );
  });

  // ------------------------------------------------------- invalid results

  const idRule = "create must return { id: string, outs? } with a non-empty string id";
  for (const [act, got] of [
    ["idMissing", "no id"],
    ["idEmpty", 'an empty id ("")'],
    ["idNumber", "id 5 (a number)"],
  ] as const) {
    it(`create returning ${got} (${act}): UNKNOWN naming the rule, where the reference answers OK with id ""`, async function () {
      expect(await create(ours, { __provider: scripted, act })).to.deep.equal(
        error(2, `Create ${urn}: the dynamic provider's create returned ${got}; ${idRule}`),
      );
      const r = await create(ref, { __provider: scripted, act });
      expect([r.code, r.view?.id]).to.deep.equal([0, ""]);
    });
  }

  it("create returning a non-object (a string)", async function () {
    expect(await create(ours, { __provider: scripted, act: "returnString" })).to.deep.equal(
      error(2, `Create ${urn}: the dynamic provider's create returned string; it must return an object ({ id: string, outs? })`),
    );
    const r = await create(ref, { __provider: scripted, act: "returnString" });
    expect([r.code, r.view?.id, r.view?.properties]).to.deep.equal([0, "", { __provider: scripted }]);
  });

  it("create returning undefined", async function () {
    expect(await create(ours, { __provider: scripted, act: "returnUndefined" })).to.deep.equal(
      error(2, `Create ${urn}: the dynamic provider's create returned undefined; it must return an object ({ id: string, outs? })`),
    );
    expect(await create(ref, { __provider: scripted, act: "returnUndefined" })).to.deep.equal(
      error(2, "Cannot read properties of undefined (reading 'outs')"),
    );
  });

  for (const [act, where] of [
    ["undefinedValue", "outs.a"],
    ["nestedUndefined", "outs.o.l[1]"],
  ] as const) {
    it(`create returning outs with undefined at ${where}: the path of the value`, async function () {
      expect(await create(ours, { __provider: scripted, act })).to.deep.equal(
        error(
          2,
          `Create ${urn}: the dynamic provider's create returned ${where} = undefined, which cannot be sent to the engine ` +
            `(Unexpected struct type.); use null or leave the key out`,
        ),
      );
      expect(await create(ref, { __provider: scripted, act })).to.deep.equal(error(2, "Unexpected struct type."));
    });
  }

  // ------------------------------------------------------- wrong package

  const pythonType = "pulumi-python:dynamic:Resource";
  const pythonUrn = nodeUrn("py", pythonType);
  const wrongPackage = (op: string, subject: string) =>
    `${op} ${subject}: this plugin (pulumi-resource-pulumi-nodejs) serves pulumi-nodejs resources, but the request is for ` +
    `type ${pythonType} of package pulumi-python; the engine should have launched pulumi-resource-pulumi-python`;

  it("a request for package pulumi-python (type and urn): INVALID_ARGUMENT naming both packages, never a guess", async function () {
    // A valid Node provider text does not make it a Node resource.
    const o = await ours.client.create({ urn: pythonUrn, type: pythonType, properties: { __provider: scripted } });
    expect(o).to.deep.equal(error(3, wrongPackage("Create", pythonUrn)));
    // A pickled-looking text is not looked at either: the package decides, before any loading.
    const c = await ours.client.check({ urn: pythonUrn, news: { __provider: "gASVAAAAAAAAAACMCGJ1aWx0aW5zlC4=" } });
    expect(c).to.deep.equal(error(3, wrongPackage("Check", pythonUrn)));
    // The reference never reads the type: it just runs the Node provider.
    const r = await ref.client.create({ urn: pythonUrn, type: pythonType, properties: { __provider: scripted, act: "noOuts" } });
    expect([r.code, r.view?.id]).to.deep.equal([0, "no-outs"]);
  });

  it("a request whose type alone names pulumi-python (no urn): INVALID_ARGUMENT naming the type", async function () {
    const o = await ours.client.create({ type: pythonType, properties: { __provider: scripted } });
    expect(o).to.deep.equal(error(3, wrongPackage("Create", pythonType)));
  });
});
