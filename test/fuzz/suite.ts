// The fuzz suite of one mode: our plugin and the reference of the same
// language, each sent every case's bytes at once; ours is judged case by case,
// the reference only recorded. One `it` per case, titled with its seed.
import { expect } from "chai";
import { nodeProvider, pythonProvider } from "../helpers/payloads.js";
import { Schedule, modeInfo, title, type Case, type Language, type Payloads } from "./cases.js";
import { judge, type Violation } from "./judge.js";
import { ANSWER_BOUND_MS, REFERENCE_BOUND_MS } from "./limits.js";
import { caseSeeds, fuzzSettings, hex } from "./random.js";
import { encodeRequest } from "./requests.js";
import { PROVIDER_SHAPES } from "./shapes-provider.js";
import { FIELD_SHAPES, WIRE_SHAPES } from "./shapes-request.js";
import { RPC_SHAPES } from "./shapes-rpc.js";
import { VALUE_SHAPES } from "./shapes-values.js";
import { Subject } from "./subject.js";
import { FuzzRecord } from "./summary.js";

export const SCHEDULE = new Schedule([...VALUE_SHAPES, ...PROVIDER_SHAPES, ...FIELD_SHAPES, ...WIRE_SHAPES, ...RPC_SHAPES]);

/** The payloads of the fuzz fixtures, made by the real serializers. */
export async function fuzzPayloads(language: Language): Promise<Payloads> {
  const node = await nodeProvider("echo", "node-providers-fuzz.cjs");
  const python = pythonProvider("echo", "python_providers_fuzz.py");
  return language === "nodejs" ? { good: node, other: python } : { good: python, other: node };
}

/** PULUMI_DYNAMIC_HOST_FUZZ_REFERENCES=0 leaves the reference plugins out (faster; nothing is compared). */
const withReferences = process.env.PULUMI_DYNAMIC_HOST_FUZZ_REFERENCES !== "0";

export function replayHint(c: Case, language: Language): string {
  return `replay: PULUMI_DYNAMIC_HOST_FUZZ_SEED=${hex(c.seed)} npx mocha --no-config --reporter test/reporter.cjs --timeout 120000 --exit dist/test/fuzz/fuzz-${language}.test.js`;
}

export function failure(c: Case, language: Language, violations: Violation[]): string {
  return [`seed ${hex(c.seed)}: ${c.shape} ${c.method} (${c.note})`, ...violations.map((v) => `  [${v.kind}] ${v.text}`), `  ${replayHint(c, language)}`].join("\n");
}

export function fuzzSuite(language: Language): void {
  const settings = fuzzSettings();
  const seeds = caseSeeds(settings, SCHEDULE.slots.length);
  const cases = seeds.map((seed) => SCHEDULE.caseFor(seed, modeInfo(language)));
  const plugin = `pulumi-resource-pulumi-${language}`;

  describe(`fuzz: our ${plugin} under ${cases.length} random and adversarial requests (base seed ${hex(settings.base)})`, function () {
    let payloads: Payloads;
    const ours = new Subject("ours", language, ANSWER_BOUND_MS, () => payloads);
    const ref = withReferences ? new Subject("reference", language, REFERENCE_BOUND_MS, () => payloads) : undefined;
    const record = new FuzzRecord(language);

    before(async function () {
      payloads = await fuzzPayloads(language);
      await Promise.all([ours.start(), ref?.start()]);
    });

    after(async function () {
      await Promise.all([ours.stop(), ref?.stop()]);
      if (record.rows.ours) console.log(`${record.table()}\n  (written to ${record.write()})`);
    });

    for (const c of cases) {
      it(title(c), async function () {
        this.timeout(2 * (ANSWER_BOUND_MS + REFERENCE_BOUND_MS) + 60_000);
        const spec = c.request(payloads);
        const bytes = encodeRequest(spec);
        const [o, r] = await Promise.all([ours.observe(c.method, bytes), ref?.observe(c.method, bytes)]);
        const violations = judge(c, spec, o, language);
        record.add("ours", c, o, violations);
        if (r) record.add("reference", c, r, judge(c, spec, r, language));
        if (violations.length > 0) expect.fail(failure(c, language, violations));
      });
    }
  });
}
