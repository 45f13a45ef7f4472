// Providers of the end-to-end test of secret resource inputs (test/e2e/secret-inputs.test.ts,
// issue 20): each method prints the secret inputs it is given, and `thrower` quotes one in its error.
"use strict";

/** Prints its secret inputs in every method and echoes them back as outputs. */
const echo = {
  async check(olds, news) {
    console.log(`check sees token ${news.token}`);
    return { inputs: news };
  },
  async diff(id, olds, news) {
    console.log(`diff sees token ${news.token}, was ${olds.token}`);
    return { changes: olds.round !== news.round };
  },
  async create(inputs) {
    console.log(`token is ${inputs.token}`);
    console.info(`nested key is ${inputs.nested.key}`);
    console.warn(`pin is ${inputs.pin}`);
    console.error(`list holds ${inputs.list[1]}`);
    console.debug(`in a sentence: the-${inputs.token}-suffix`);
    console.log(`flag is ${inputs.flag}, a plain value is ${inputs.plain}`);
    return { id: "echo", outs: outsOf(inputs) };
  },
  async update(id, olds, news) {
    console.log(`update sees token ${news.token}`);
    return { outs: outsOf(news) };
  },
  async delete(id, props) {
    console.log(`delete sees token ${props.token}`);
  },
};

function outsOf(inputs) {
  const { token, nested, pin, list, flag, plain, round } = inputs;
  return { token, nested, pin, list, flag, plain, round, typeOfToken: typeof token };
}

/** Fails its create with a message quoting its secret input. */
const thrower = {
  async create(inputs) {
    throw new Error(`cannot log in with token ${inputs.token}`);
  },
};

module.exports = { echo, thrower };
