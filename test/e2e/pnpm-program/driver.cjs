// Runs one operation of the end-to-end pnpm program (node-moved-paths.test.ts)
// with this project's own @pulumi/pulumi, installed by pnpm: an Automation API
// inline program, so this process is the language host and serializes the
// provider with the SDK a pnpm user has. Prints one JSON document: the
// operation's engine events, its summary or error, and the dynamic resources
// of `stack export` after it.
//
//   node driver.cjs <up|refresh|destroy> '<settings JSON>'
//   settings: { root, stackName, home, backend, env }
"use strict";

const pulumi = require("@pulumi/pulumi");
const automation = require("@pulumi/pulumi/automation");
// Captured by the provider below: the serializer writes it as a require() of
// the file it was loaded from, under pnpm its store path with ms's version.
const ms = require("ms");

const provider = {
  async create(inputs) {
    return { id: `timeout-${inputs.duration}`, outs: { ...inputs, millis: ms(inputs.duration), ranBy: process.argv[1] } };
  },
  async read(id, props) {
    return { id, props: { ...props, millis: ms(props.duration), ranBy: process.argv[1] } };
  },
  async delete() {},
};

async function main() {
  const [operation, json] = process.argv.slice(2);
  const settings = JSON.parse(json);
  const program = async () => {
    new pulumi.dynamic.Resource(provider, "timeout", { duration: "2 days" });
  };
  const pulumiCommand = await automation.PulumiCommand.get({ root: settings.root, skipVersionCheck: true });
  const stack = await automation.LocalWorkspace.createOrSelectStack(
    { stackName: settings.stackName, projectName: "e2e-pnpm", program },
    {
      workDir: process.cwd(),
      pulumiHome: settings.home,
      envVars: settings.env,
      pulumiCommand,
      projectSettings: { name: "e2e-pnpm", runtime: "nodejs", backend: { url: `file://${settings.backend}` } },
    },
  );
  const events = [];
  const onEvent = (e) => events.push(e);
  const doc = { operation, events };
  try {
    const result = await stack[operation]({ onEvent });
    doc.summary = result.summary;
  } catch (e) {
    doc.error = { name: e.name, message: String(e.message) };
  }
  const exported = await stack.exportStack();
  doc.resources = (exported.deployment.resources || []).filter((r) => r.type.startsWith("pulumi-nodejs:"));
  process.stdout.write(JSON.stringify(doc));
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ driverError: String(e && e.stack ? e.stack : e) }));
});
