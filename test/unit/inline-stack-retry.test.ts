// The end-to-end helper's retry (test/helpers/inline-stack.ts): an operation run a second time after
// the program's own channel was lost reports the steps its first attempt completed, not the "same"
// the second attempt found them at.

import { expect } from "chai";
import { mergedChanges, retried } from "../helpers/inline-stack.js";

const step = (urn: string, op: string) => ({ resOutputsEvent: { metadata: { urn, op } } });
const A = "urn:pulumi:s::p::pulumi-nodejs:dynamic:Resource::a";
const B = "urn:pulumi:s::p::pulumi-nodejs:dynamic:Resource::b";
const STACK = "urn:pulumi:s::p::pulumi:pulumi:Stack::p-s";

describe("end-to-end helper: an operation retried after the program's channel was lost", function () {
  it("a resource the first attempt updated counts as an update, not as the second attempt's same", function () {
    const first = [step(A, "update"), { diagnosticEvent: { severity: "info", message: "x" } }];
    const second = [step(A, "same"), step(STACK, "same")];
    expect(mergedChanges(first, second, { same: 2 })).to.deep.equal({ update: 1, same: 1 });
  });

  it("a resource the first attempt deleted, absent from the second, counts as a delete", function () {
    expect(mergedChanges([step(A, "delete")], [step(B, "delete")], { delete: 1 })).to.deep.equal({ delete: 2 });
  });

  it("the second attempt's own work counts as it is; a first attempt that changed nothing changes nothing", function () {
    expect(mergedChanges([step(A, "create")], [step(A, "replace")], { replace: 1 })).to.deep.equal({ replace: 1 });
    expect(mergedChanges([step(A, "same")], [step(A, "update")], { update: 1 })).to.deep.equal({ update: 1 });
    expect(mergedChanges([], [step(A, "create")], { create: 1 })).to.deep.equal({ create: 1 });
  });
});

describe("end-to-end helper: the retry itself", function () {
  const lost = Object.assign(new Error("One or more errors occurred: 14 UNAVAILABLE: No connection established"), { stderr: "" });
  let stderr: typeof process.stderr.write;
  beforeEach(() => {
    stderr = process.stderr.write;
    process.stderr.write = (() => true) as any;
  });
  afterEach(() => {
    process.stderr.write = stderr;
  });

  it("hands on both attempts' events without the first one's failure, and the merged counts", async function () {
    let calls = 0;
    const run = async (o: any) => {
      calls += 1;
      if (calls === 1) {
        o.onEvent(step(A, "update"));
        o.onEvent({ diagnosticEvent: { severity: "info", message: "update sees token [secret]" } });
        o.onEvent({ diagnosticEvent: { severity: "error", message: lost.message } });
        o.onEvent({ summaryEvent: { resourceChanges: { update: 1 } } });
        throw lost;
      }
      o.onEvent(step(A, "same"));
      return { summary: { result: "succeeded", resourceChanges: { same: 1 } } };
    };
    const seen: any[] = [];
    const result = await retried("up", "s", run, { onEvent: (e: unknown) => seen.push(e) });
    expect(calls).to.equal(2);
    expect(result.summary.resourceChanges).to.deep.equal({ update: 1 });
    expect(seen).to.deep.equal([
      step(A, "update"),
      { diagnosticEvent: { severity: "info", message: "update sees token [secret]" } },
      step(A, "same"),
    ]);
  });

  it("any other failure is the caller's, at once", async function () {
    let calls = 0;
    const failed = await retried("up", "s", async () => {
      calls += 1;
      throw new Error("the update failed");
    }).catch((e: Error) => e.message);
    expect([calls, failed]).to.deep.equal([1, "the update failed"]);
  });
});
