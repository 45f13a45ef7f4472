// A __provider whose require() names a package path that no longer exists,
// made by the real serializer (@pulumi/pulumi 3.270.0) from a package laid
// out as aspect_rules_js lays it out (test/fixtures/node-providers-moved.cjs),
// the layout then removed, as on another machine or after a rebuild. Sent to
// the Node reference and to ours, both running in the program directory where
// `ms` is installed (the repository's node_modules above it). The difference
// is deliberate (docs/parity.md): the reference fails Read and Delete with
// `Cannot find module`; ours loads the program's ms (and warns under the
// resource: test/e2e/node-moved-paths.test.ts shows the warning in the engine).
import { expect } from "chai";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { nodeUrn } from "../helpers/client.js";
import { usePair, both } from "../helpers/pair.js";
import { FIXTURES, NODE_PROGRAM, REFERENCE_NODE_PLUGIN } from "../helpers/paths.js";

const require = createRequire(import.meta.url);
const { serializeAspectProvider } = require(`${FIXTURES}node-providers-moved.cjs`);

interface Serialized {
  text: string;
  version: string;
  oldPath: string;
}

/** The text for a package laid out under a directory that is removed once the text is made. */
async function serializedThenMoved(name?: string): Promise<Serialized> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "aspect-layout-"));
  try {
    return await serializeAspectProvider(root, name);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

describe("differential (Node): a provider's require of a package path that moved", function () {
  const pair = usePair();
  let moved: Serialized;
  let absent: Serialized;
  const props = (s: Serialized) => ({ __provider: s.text, duration: "2 days", millis: 1 });
  const refRequireStack = `Require stack:\n- \n- ${fs.realpathSync(REFERENCE_NODE_PLUGIN)}`;

  before(async function () {
    moved = await serializedThenMoved();
    absent = await serializedThenMoved("ms-nowhere");
  });

  it("the real serializer writes the aspect_rules_js store path, version and all", function () {
    expect(moved.text).to.include(`require("${moved.oldPath}")`);
    expect(moved.oldPath).to.equal(`.aspect_rules_js/ms@${moved.version}/node_modules/ms/index.js`);
  });

  it("[difference] Read and Delete: the reference fails with Cannot find module; ours loads the program's ms", async function () {
    const urn = nodeUrn("timeout");
    const [oRead, rRead] = await both(pair, (c) => c.read({ urn, id: "timeout", properties: props(moved) }));
    expect(rRead).to.deep.equal({ code: 2, details: `Cannot find module '${moved.oldPath}'\n${refRequireStack}` });
    expect(oRead.code, oRead.details).to.equal(0);
    expect(oRead.view.properties).to.deep.equal({ ...props(moved), millis: 172800000 });

    const [oDelete, rDelete] = await both(pair, (c) => c.delete({ urn, id: "timeout", properties: props(moved) }));
    expect(rDelete).to.deep.equal({ code: 2, details: `Cannot find module '${moved.oldPath}'\n${refRequireStack}` });
    expect(oDelete.code, oDelete.details).to.equal(0);
  });

  it("[difference] a package the program does not have: ours names the old path and the name resolved from the program directory", async function () {
    const urn = nodeUrn("nowhere");
    const [o, r] = await both(pair, (c) => c.read({ urn, id: "timeout", properties: props(absent) }));
    expect(r).to.deep.equal({ code: 2, details: `Cannot find module '${absent.oldPath}'\n${refRequireStack}` });
    expect(o).to.deep.equal({
      code: 2,
      details:
        `Read ${urn}: Cannot find module '${absent.oldPath}' required by the dynamic provider: that path does not exist here ` +
        `(it is where ms-nowhere was when the provider was serialized, in the .aspect_rules_js store), and ms-nowhere/index.js ` +
        `resolved from the program directory ${NODE_PROGRAM} (its node_modules and those of its parents) was not found either; ` +
        `install ms-nowhere in the program's dependencies`,
    });
  });
});
