// The sample dynamic provider the demo walks through its lifecycle: it manages
// a text file. Serialized by @pulumi/pulumi's own closure serializer, exactly as
// `new pulumi.dynamic.Resource(fileProvider, …)` would in a program.
"use strict";
const { runtime } = require("@pulumi/pulumi");

const fileProvider = {
  async check(olds, news) {
    const failures = [];
    if (typeof news.path !== "string" || news.path === "") failures.push({ property: "path", reason: "path must be a non-empty string" });
    return { inputs: { ...news, content: news.content ?? "" }, failures };
  },
  async diff(id, olds, news) {
    const changes = olds.path !== news.path || olds.content !== news.content;
    return { changes, replaces: olds.path !== news.path ? ["path"] : [], deleteBeforeReplace: false };
  },
  async create(inputs) {
    require("fs").writeFileSync(inputs.path, inputs.content);
    console.log(`wrote ${inputs.content.length} bytes to ${inputs.path}`);
    return { id: inputs.path, outs: { path: inputs.path, content: inputs.content, size: inputs.content.length } };
  },
  async read(id, props) {
    const fs = require("fs");
    if (!fs.existsSync(id)) return { id: "", props: {} };
    const content = fs.readFileSync(id, "utf8");
    return { id, props: { ...props, content, size: content.length }, inputs: { path: id, content } };
  },
  async update(id, olds, news) {
    require("fs").writeFileSync(news.path, news.content);
    return { outs: { path: news.path, content: news.content, size: news.content.length } };
  },
  async delete(id) {
    require("fs").rmSync(id, { force: true });
  },
};

module.exports = {
  fileProvider,
  serialize: async () => (await runtime.serializeFunction(() => fileProvider, { allowSecrets: true })).text,
};
