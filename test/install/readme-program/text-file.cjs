// The README's TypeScript example (Quick start step 3), as `tsc` compiles it for a
// CommonJS program (`pulumi new typescript`), for test/install/readme-routes.test.ts.
// Its create and update also return which process ran them (argv[1]: the plugin name
// the engine ran; execPath: node, or the single executable).
"use strict";
const fs = require("fs");

// A provider that manages a text file, run by the host in the engine's plugin.
const textFileProvider = {
    async create(inputs) {
        fs.writeFileSync(inputs.path, inputs.content);
        return { id: inputs.path, outs: { ...inputs, ranBy: { argv1: process.argv[1], execPath: process.execPath, cwd: process.cwd() } } };
    },
    async update(id, olds, news) {
        fs.writeFileSync(news.path, news.content);
        return { outs: { ...news, ranBy: { argv1: process.argv[1], execPath: process.execPath, cwd: process.cwd() } } };
    },
    async delete(id) {
        fs.rmSync(id, { force: true });
    },
};

exports.textFileProvider = textFileProvider;
