// The host's caches by provider text have a limit (src/host/limits/bounded-cache.ts):
// a program with a distinct `__provider` per resource (a closure capturing a
// per-resource value, as the real serializer writes it) must not grow the Node
// loader without bound; the least recently used provider goes, and a text used
// again after it went is evaluated and configured again.
import { expect } from "chai";
import { createRequire } from "node:module";
import { BoundedCache } from "../../src/host/limits/bounded-cache.js";
import { LOADED_TEXTS_LIMIT, ProviderLoader } from "../../src/node-dynamic/loader.js";
import { SCENARIOS } from "../helpers/paths.js";

const require = createRequire(import.meta.url);

describe("bounded caches", function () {
  describe("BoundedCache", function () {
    it("keeps at most its limit, dropping the least recently used", function () {
      const c = new BoundedCache<string, number>(2);
      c.set("a", 1).set("b", 2);
      expect(c.get("a")).to.equal(1); // a is now the most recent
      c.set("c", 3);
      expect([...c.keys()]).to.deep.equal(["a", "c"]);
      expect(c.get("b")).to.equal(undefined);
      expect(c.size).to.equal(2);
    });

    it("keeps null and other falsy values as values", function () {
      const c = new BoundedCache<string, string | null>(3);
      c.set("x", null);
      expect(c.get("x")).to.equal(null);
      expect(c.has("x")).to.equal(true);
    });

    it("tells its owner of each entry the limit pushed out, and of no other", function () {
      const evicted: [string, number][] = [];
      const c = new BoundedCache<string, number>(2, (k, v) => evicted.push([k, v]));
      c.set("a", 1).set("b", 2).set("a", 10); // replacing is no eviction
      c.delete("a"); // nor is a delete
      c.set("c", 3).set("d", 4);
      expect(evicted).to.deep.equal([["b", 2]]);
      expect([...c.keys()]).to.deep.equal(["c", "d"]);
    });

    it("refuses a limit that is not a whole number of at least 1", function () {
      expect(() => new BoundedCache(0)).to.throw(/whole number, at least 1/);
      expect(() => new BoundedCache(1.5)).to.throw(/whole number, at least 1/);
    });
  });

  describe("the Node loader, with a distinct serialized provider per resource", function () {
    this.timeout(120_000);
    const { serializeProvider } = require(`${SCENARIOS}node/serialize.cjs`);
    // Each closure captures its own constant, so each text differs; each counts its configures.
    const configured: number[] = [];
    (globalThis as any).__boundedCacheConfigured = configured;
    const distinct = (i: number) => ({
      async configure() {
        (globalThis as any).__boundedCacheConfigured.push(i);
      },
      async create() {
        return { id: `r${i}`, outs: { i } };
      },
    });

    it("keeps at most its limit of providers, and loads a dropped one again", async function () {
      const texts: string[] = [];
      for (let i = 0; i < 5; i++) texts.push(await serializeProvider(distinct(i)));
      expect(new Set(texts).size).to.equal(5);
      const loader = new ProviderLoader(process.cwd(), 3);
      for (const text of texts) await loader.get({ text });
      expect(loader.loaded).to.equal(3);
      expect(configured).to.deep.equal([0, 1, 2, 3, 4]);
      // The most recent three are kept: no new configure.
      for (const text of texts.slice(2)) await loader.get({ text });
      expect(configured).to.deep.equal([0, 1, 2, 3, 4]);
      // The first went: evaluated and configured again, and still answers.
      const again = await loader.get({ text: texts[0] });
      expect(configured).to.deep.equal([0, 1, 2, 3, 4, 0]);
      expect(await (again as any).create({})).to.deep.equal({ id: "r0", outs: { i: 0 } });
      expect(loader.loaded).to.equal(3);
    });

    it("has a default limit far below a stack of 10,000 distinct providers", async function () {
      expect(LOADED_TEXTS_LIMIT).to.be.within(100, 5000);
      const loader = new ProviderLoader(process.cwd());
      const text = await serializeProvider(distinct(-1));
      const variants = LOADED_TEXTS_LIMIT + 50;
      // The same closure, its captured constant varied in the text (what the serializer writes for each).
      expect(text).to.include("-1");
      for (let i = 0; i < variants; i++) await loader.get({ text: text.replace("-1", String(1_000_000 + i)) });
      expect(loader.loaded).to.equal(LOADED_TEXTS_LIMIT);
    });
  });
});
