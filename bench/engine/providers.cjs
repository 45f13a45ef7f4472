// The dynamic providers of the real-engine benchmark's TypeScript program
// (bench/engine-run.ts): `trivial` answers at once (`distinct`, below, is it
// with a closure of its own per resource); `waiting` takes 100 ms in
// create, update and delete, as a cloud API would. Both read back what they
// hold (refresh), and echo which plugin ran them (process.argv[1]: our host's
// pulumi-resource-pulumi-nodejs, or the reference's cmd/dynamic-provider), so
// the benchmark can check it measured the plugin it meant to.
"use strict";

const ranBy = () => process.argv[1];
const pause = () => new Promise((resolve) => setTimeout(resolve, 100));

const trivial = {
  async create(inputs) {
    return { id: `trivial-${inputs.name}`, outs: { ...inputs, ranBy: ranBy() } };
  },
  async read(id, props) {
    return { id, props };
  },
  async update(id, olds, news) {
    return { outs: { ...news, ranBy: ranBy() } };
  },
  async delete() {},
};

const waiting = {
  async create(inputs) {
    await pause();
    return { id: `waiting-${inputs.name}`, outs: { ...inputs, ranBy: ranBy() } };
  },
  async read(id, props) {
    return { id, props };
  },
  async update(id, olds, news) {
    await pause();
    return { outs: { ...news, ranBy: ranBy() } };
  },
  async delete() {
    await pause();
  },
};

// `distinct`: the trivial provider made for one resource, its closure capturing
// that resource's number, so the SDK writes a different __provider text for
// every resource (what a program whose provider captures per-resource values
// gives the plugin to load and keep).
function distinct(i) {
  const made = i;
  return {
    async create(inputs) {
      return { id: `distinct-${made}-${inputs.name}`, outs: { ...inputs, ranBy: ranBy() } };
    },
    async read(id, props) {
      return { id, props };
    },
    async update(id, olds, news) {
      return { outs: { ...news, ranBy: ranBy() } };
    },
    async delete() {},
  };
}

module.exports = { trivial, waiting, distinct };
