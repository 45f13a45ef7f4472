// The program-side helper pulumi-dynamic-host/declared (declared/index.cjs)
// under the SDK's mocks, in a process of its own (the mocks are process-wide
// state) run by Node and by Bun: a declared type is registered with its inputs
// alone, no __provider; the named outputs resolve; names that would clash with
// the resource object are refused; `outputs` is not passed on to the SDK. The
// type-level contract of output() is checked by tsc (typeChecks below).
import { expect } from "chai";
import { execFile } from "node:child_process";
import type * as pulumi from "@pulumi/pulumi";
import type { DeclaredResource } from "pulumi-dynamic-host/declared";
import { BUN, FIXTURES, REPO } from "../helpers/paths.js";

const TYPE = "pulumi-nodejs:dynamic/files:TextFile";

function runMocks(runtime: string): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    execFile(runtime, [`${FIXTURES}declared-mocks.cjs`, REPO], { encoding: "utf8" }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${runtime} declared-mocks.cjs: ${err.message}\n${stderr}`));
      resolve(JSON.parse(stdout));
    });
  });
}

for (const [runtime, executable] of [
  ["node", process.execPath],
  ["bun", BUN],
] as const) {
  describe(`DeclaredResource under the SDK's mocks (${runtime})`, function () {
    this.timeout(60_000);
    let got: Record<string, any>;
    before(async function () {
      got = await runMocks(executable);
    });

    it("registers the declared type with its inputs alone: no __provider, named outputs not sent as inputs", function () {
      const byName = Object.fromEntries(got.registered.map((r: any) => [r.name, r]));
      expect(Object.keys(byName).sort(), "the refused resources never registered").to.deep.equal(["both", "motd"]);
      expect(byName.motd).to.deep.equal({ type: TYPE, name: "motd", inputs: { path: "/tmp/motd", content: "hello" }, custom: true });
      expect(byName.both.inputs, "an output that is also an input keeps the input's value").to.deep.equal({ path: "/tmp/both", content: "xy" });
      expect(got.isCustomResource).to.equal(true);
    });

    it("output() resolves inputs and named outputs to the provider's values; it is the SDK's own property", function () {
      expect(got.values).to.deep.equal({ id: "id-of-motd", path: "/tmp/motd", size: 5, ranBy: "mock", bothSize: 2 });
      expect(got.sameAsProperty).to.equal(true);
    });

    it("outputs is the helper's option, not passed on to the SDK", function () {
      expect(got.optionKeys).to.deep.equal([["protect", "transformations"]]);
    });

    it("refuses names that clash with the resource object, and an output that was not registered, saying why", function () {
      const e = got.errors;
      expect(e.unregistered).to.equal(
        `DeclaredResource ${TYPE}: "colour" was not registered (registered: "path", "content", "size", "ranBy"); ` +
          `the SDK resolves only the properties a resource registers: name it in opts.outputs`,
      );
      expect(e.urnInput).to.equal(`DeclaredResource ${TYPE} "u": "urn" cannot be an input property: it is the resource's own urn; rename it in the provider`);
      expect(e.idOutput).to.equal(`DeclaredResource ${TYPE} "i": "id" cannot be an output property: it is the resource's own id; rename it in the provider`);
      expect(e.providerInput).to.contain(`"__provider" cannot be an input property: names beginning with __ are reserved for the Pulumi SDK`);
      expect(e.memberOutput).to.equal(`DeclaredResource ${TYPE} "m": "output" cannot be an output property: it is a member of the resource object; rename it in the provider`);
      expect(e.methodInput).to.contain(`"getProvider" cannot be an input property: it is a member of the resource object`);
      expect(e.subclassMember, "a subclass's own method").to.contain(`"describe" cannot be an output property: it is a member of the resource object`);
      expect(e.badOutputs).to.equal(`DeclaredResource ${TYPE} "b": opts.outputs must be an array of output property names`);
    });
  });
}

/** Never run: tsc checks the helper's types through the package's own `exports` (./declared). */
export function typeChecks(r: DeclaredResource<{ path: string; size: number }>, loose: DeclaredResource): void {
  const size: pulumi.Output<number> = r.output("size");
  // @ts-expect-error: not an output of the declared type
  r.output("colour");
  // @ts-expect-error: size is a number
  const wrong: pulumi.Output<string> = r.output("size");
  const anything: pulumi.Output<any> = loose.output("whatever");
  void [size, wrong, anything];
}
