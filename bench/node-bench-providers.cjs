// The benchmark's Node dynamic providers, serialized by the real @pulumi/pulumi
// closure serializer exactly as pulumi.dynamic.Resource does (the same
// `serialize(name)` shape as test/fixtures/node-providers.cjs). Each mirrors a
// Python benchmark provider so both languages do the same work per request.
"use strict";
const { serializeProvider } = require("../test/fixtures/serialize.cjs");

// Create only, like the Python `minimal`: answers with the input keys.
const trivial = {
  async create(props) {
    return { id: "trivial", outs: { got: Object.keys(props).sort() } };
  },
};

// IO-bound, like the Python `sleepy`: awaits a timer of props.seconds (20 ms by default).
const io = {
  async create(props) {
    const seconds = props.seconds ?? 0.02;
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    return { id: "slept", outs: { seconds } };
  },
};

// CPU-bound, like the Python `cpu`: chains SHA-256 digests for props.seconds (5 ms by default).
const cpu = {
  async create(props) {
    const crypto = require("crypto");
    const deadline = performance.now() + (props.seconds ?? 0.005) * 1000;
    let h = Buffer.from("x");
    let rounds = 0;
    while (performance.now() < deadline) {
      h = crypto.createHash("sha256").update(h).digest();
      rounds++;
    }
    return { id: "cpu", outs: { rounds, pid: process.pid } };
  },
};

// Every resource method, each answering at once: the check → create → diff → update → delete cycle.
const crud = {
  async check(olds, news) {
    return { inputs: news };
  },
  async diff(id, olds, news) {
    return { changes: olds.n !== news.n };
  },
  async create(props) {
    return { id: `crud-${props.n}`, outs: { n: props.n } };
  },
  async update(id, olds, news) {
    return { outs: { n: news.n } };
  },
  async delete() {},
};

// Echoes the whole property bag back: the payload-size workload moves it both ways.
const echo = {
  async create(props) {
    return { id: "echo", outs: props };
  },
};

const providers = { trivial, io, cpu, crud, echo };

/** A provider capturing the constant `n`: a distinct `__provider` text for each n. */
function distinct(n) {
  return {
    async create() {
      return { id: `distinct-${n}`, outs: { n } };
    },
  };
}

/** The `__provider` text for the named provider (`distinct:<n>` for the n-th distinct one). */
async function serialize(name) {
  const m = /^distinct:(\d+)$/.exec(name);
  if (m) return serializeProvider(distinct(Number(m[1])));
  const p = providers[name];
  if (!p) throw new Error(`no Node bench provider named ${name}`);
  return serializeProvider(p);
}

module.exports = { serialize, names: Object.keys(providers) };
