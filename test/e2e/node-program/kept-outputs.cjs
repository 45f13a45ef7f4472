// A provider with create alone: no diff, no update (issue 19). Its outputs are
// more than its inputs, so losing them on an update shows in `stack export`.
// The engine test loads copies of this file, reformatted, to change the
// serialized text without changing the code.
"use strict";

exports.provider = {
  async create(inputs) {
    return { id: `kept-${inputs.label}`, outs: { ...inputs, serial: 42, madeBy: "create", nested: { list: [1, "two", null] } } };
  },
};
