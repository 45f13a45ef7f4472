// A __provider whose require() names a package path that no longer exists, made
// by the real serializer from a package laid out as aspect_rules_js lays it out
// (scenarios/node/node-providers-moved.cjs), the layout then removed, as on
// another machine or after a rebuild. The plugins run in the program directory,
// where `ms` is installed. The difference is deliberate (docs/parity.md): the
// reference fails Read and Delete with `Cannot find module`; ours loads the
// program's ms (and warns under the resource: test/e2e/node-moved-paths.test.ts).
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { equal, session, type Case, type CaseContext } from "../../case.js";
import type { Outcome } from "../../client.js";

interface Serialized {
  text: string;
  version: string;
  oldPath: string;
}

const made = new Map<string, Promise<Serialized>>();

/** The text for a package laid out under a directory that is removed once the text is made (once per program and name). */
function serializedThenMoved(ctx: CaseContext, name = "ms"): Promise<Serialized> {
  const key = `${ctx.program.scenarioDir}#${name}`;
  let s = made.get(key);
  if (!s) {
    s = (async () => {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), "aspect-layout-"));
      try {
        return (await ctx.scenarioModule("node-providers-moved").serializeAspectProvider(root, name)) as Serialized;
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    })();
    made.set(key, s);
  }
  return s;
}

const props = (s: Serialized) => ({ __provider: s.text, duration: "2 days", millis: 1 });

/** The reference's Require stack: its own entry point, as the program's @pulumi/pulumi installs it. */
function refRequireStack(ctx: CaseContext): string {
  const entry = createRequire(path.join(ctx.programDir, "x.js")).resolve("@pulumi/pulumi/cmd/dynamic-provider/index.js");
  return `Require stack:\n- \n- ${fs.realpathSync(entry)}`;
}

const s = session({ id: "node/moved-paths", language: "nodejs", suite: ["differential (Node): a provider's require of a package path that moved"] });
const DOC = "docs/moved-module-paths.md";

/** Where our plugin tells the user to install a package the program lacks: the program's package, or its directory when it has none. */
function installPlace(programDir: string): string {
  for (let dir = programDir; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "package.json"))) return `the program's package, ${dir}`;
    if (path.dirname(dir) === dir) return `the program directory ${programDir}`;
  }
}

export const nodeMovedPaths: Case[] = [
  s.case<Serialized>("aspect-store-path", {
    title: "the real serializer writes the aspect_rules_js store path, version and all",
    needs: ["ms"],
    ask: (ctx) => serializedThenMoved(ctx),
    expect(moved) {
      equal(moved.text.includes(`require("${moved.oldPath}")`), true, `the text requires ${moved.oldPath}`);
      equal(moved.oldPath, `.aspect_rules_js/ms@${moved.version}/node_modules/ms/index.js`);
    },
  }),

  s.case<{ moved: Serialized; read: Outcome; del: Outcome; stack: string }>("read-delete-moved", {
    title: "[difference] Read and Delete: the reference fails with Cannot find module; ours loads the program's ms",
    needs: ["ms"],
    async ask(ctx) {
      const moved = await serializedThenMoved(ctx);
      const urn = ctx.urn("timeout");
      const read = await ctx.client.read({ urn, id: "timeout", properties: props(moved) });
      const del = await ctx.client.delete({ urn, id: "timeout", properties: props(moved) });
      return { moved, read, del, stack: refRequireStack(ctx) };
    },
    difference: {
      doc: DOC,
      ours({ moved, read, del }) {
        equal(read.code, 0, read.details);
        equal(read.view.properties, { ...props(moved), millis: 172800000 });
        equal(del.code, 0, del.details);
      },
      reference({ moved, read, del, stack }) {
        equal(read, { code: 2, details: `Cannot find module '${moved.oldPath}'\n${stack}` });
        equal(del, { code: 2, details: `Cannot find module '${moved.oldPath}'\n${stack}` });
      },
    },
  }),

  s.case<{ absent: Serialized; urn: string; o: Outcome; stack: string; programDir: string }>("absent-package", {
    title: "[difference] a package the program does not have: ours names the old path and the name resolved from the program directory",
    needs: ["ms"],
    async ask(ctx) {
      const absent = await serializedThenMoved(ctx, "ms-nowhere");
      const urn = ctx.urn("nowhere");
      const o = await ctx.client.read({ urn, id: "timeout", properties: props(absent) });
      return { absent, urn, o, stack: refRequireStack(ctx), programDir: ctx.programDir };
    },
    difference: {
      doc: DOC,
      ours: ({ absent, urn, o, programDir }) =>
        equal(o, {
          code: 2,
          details:
            `Read ${urn}: Cannot find module '${absent.oldPath}' required by the dynamic provider: that path does not exist here ` +
            `(it is where ms-nowhere was when the provider was serialized, in the .aspect_rules_js store), and ms-nowhere/index.js ` +
            `resolved from the program directory ${programDir} (its node_modules and those of its parents) was not found either; ` +
            `install ms-nowhere in ${installPlace(programDir)} (npm install ms-nowhere there)`,
        }),
      reference: ({ absent, o, stack }) => equal(o, { code: 2, details: `Cannot find module '${absent.oldPath}'\n${stack}` }),
    },
  }),
];
