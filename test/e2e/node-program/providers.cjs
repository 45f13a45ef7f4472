// The dynamic providers of the end-to-end TypeScript program (program.ts).
// Each echoes which plugin ran it (process.argv[1]: our host's
// pulumi-resource-pulumi-nodejs, or the reference's cmd/dynamic-provider).
"use strict";

const ranBy = () => process.argv[1];

/** Updates in place when `value` changes; replaces (create before delete) when `key` changes. */
const basic = {
  async diff(id, olds, news) {
    const replaces = olds.key !== news.key ? ["key"] : [];
    return { changes: olds.value !== news.value || replaces.length > 0, replaces };
  },
  async create(inputs) {
    return { id: `${inputs.key}-${Date.now()}`, outs: { ...inputs, ranBy: ranBy() } };
  },
  async update(id, olds, news) {
    return { outs: { ...news, ranBy: ranBy(), updatedFrom: olds.value } };
  },
};

/** Replaces with deleteBeforeReplace when `key` changes. */
const deleteFirst = {
  async diff(id, olds, news) {
    const replace = olds.key !== news.key;
    return { changes: replace, replaces: replace ? ["key"] : [], deleteBeforeReplace: replace };
  },
  async create(inputs) {
    return { id: `dbr-${inputs.key}`, outs: { ...inputs } };
  },
};

/** Reads plain and secret stack config in configure. */
const configured = {
  async configure(req) {
    this.plain = req.config.get("plain");
    this.secret = req.config.require("secret");
  },
  async create() {
    return { id: "configured", outs: { plain: this.plain ?? null, secretLength: this.secret ? this.secret.length : -1 } };
  },
};

/** Refresh reads the state back and reports the inputs it implies, so refresh changes nothing. */
const reader = {
  async create(inputs) {
    return { id: `reader-${inputs.value}`, outs: { value: inputs.value } };
  },
  async read(id, props) {
    return { id, props: { value: props.value }, inputs: { value: props.value } };
  },
};

/** Prints from create: the engine shows it as an info diagnostic. */
const chatty = {
  async create(inputs) {
    console.log(`hello from create: ${inputs.greeting}`);
    return { id: "chatty", outs: { greeting: inputs.greeting } };
  },
};

/** Check sees the upstream id as the unknown sentinel during the first preview, and says so in its inputs. */
const dependent = {
  async check(olds, news) {
    return { inputs: { ...news, upstreamUnknownAtCheck: news.upstream === "04da6b54-80e4-46f7-96ec-b56ff0331ba9" } };
  },
  async create(inputs) {
    return { id: `dependent-of-${inputs.upstream}`, outs: { upstream: inputs.upstream } };
  },
};

/** Refuses its inputs in check. */
const checkFails = {
  async check(olds, news) {
    return { inputs: news, failures: [{ property: "value", reason: "value must not be 'bad'" }] };
  },
  async create() {
    return { id: "never", outs: {} };
  },
};

/** Throws from create. */
const createThrows = {
  async create() {
    throw new Error("create exploded on purpose");
  },
};

/** A partial create: the resource exists (it has an id) but did not initialise. */
const partialCreate = {
  async create() {
    throw { message: "half made", id: "partial-1", properties: { made: true }, reasons: ["the widget did not start"] };
  },
};

/** A provider closing over a secret: its serialized text is a secret. */
function capturingSecret(secret) {
  return {
    async create() {
      return { id: "captured", outs: { secretLength: secret.get().length } };
    },
  };
}

module.exports = { basic, deleteFirst, configured, reader, chatty, dependent, checkFails, createThrows, partialCreate, capturingSecret };
