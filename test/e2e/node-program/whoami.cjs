// A provider that reports which process runs it, for the tests of each way the
// host is installed (install-modes.test.ts): the name the engine ran
// (process.argv[1], under node or as the single executable) and the runtime
// (process.execPath: node, or the single executable itself).
"use strict";

const whoami = () => ({ argv1: process.argv[1], execPath: process.execPath });

exports.whoami = {
  async diff(_id, olds, news) {
    return { changes: olds.value !== news.value };
  },
  async create(inputs) {
    return { id: `${inputs.value}-${Date.now()}`, outs: { ...inputs, ranBy: whoami() } };
  },
  async update(_id, _olds, news) {
    return { outs: { ...news, ranBy: whoami() } };
  },
};
