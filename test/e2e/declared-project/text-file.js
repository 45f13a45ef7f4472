"use strict";
// A declared Node provider: a text file on disk, id = its path. read answers
// inputs too, so an existing file can be imported. `ranBy` is the script the
// process runs (our host's entry, or Pulumi's cmd/dynamic-provider);
// `launchedAs` the plugin name our host was started under.
const fs = require("fs");

const ranBy = () => ({ script: process.argv[1], launchedAs: process.env.PULUMI_DYNAMIC_HOST_SERVE || null, pid: process.pid });

exports.textFileProvider = {
  async diff(_id, olds, news) {
    const replaces = olds.path !== news.path ? ["path"] : [];
    return { changes: olds.content !== news.content || replaces.length > 0, replaces };
  },
  async create(inputs) {
    fs.writeFileSync(inputs.path, inputs.content);
    return { id: inputs.path, outs: { path: inputs.path, content: inputs.content, size: inputs.content.length, ranBy: ranBy() } };
  },
  async read(id) {
    if (!fs.existsSync(id)) return { id: undefined };
    const content = fs.readFileSync(id, "utf8");
    return { id, props: { path: id, content, size: content.length, ranBy: ranBy() }, inputs: { path: id, content } };
  },
  async update(_id, _olds, news) {
    fs.writeFileSync(news.path, news.content);
    return { outs: { path: news.path, content: news.content, size: news.content.length, ranBy: ranBy() } };
  },
  async delete(id) {
    fs.rmSync(id, { force: true });
  },
};
