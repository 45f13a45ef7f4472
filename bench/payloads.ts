// The `__provider` payloads of every benchmark workload, made by the real SDK
// serializers before any clock starts: Node ones by @pulumi/pulumi's closure
// serializer (bench/node-bench-providers.cjs through the tests' nodeProvider),
// Python ones by pulumi.dynamic's serialize_provider in the test virtualenv
// (src/conformance/scenarios/python_providers.py through pythonProvider, and
// bench/python_bench_providers.py for the cycle, echo and distinct ones).
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { nodeProvider, pythonProvider } from "../test/helpers/payloads.js";
import { VENV_PYTHON } from "../test/helpers/paths.js";

export type Language = "nodejs" | "python";

export interface ProviderSet {
  trivial: string;
  io: string;
  cpu: string;
  crud: string;
  echo: string;
  /** Distinct providers, one payload each. */
  distinct: string[];
}

const BENCH_DIR = fileURLToPath(new URL("../../bench/", import.meta.url));
/** nodeProvider resolves fixture files from test/fixtures/. */
const NODE_FIXTURE = "../../bench/node-bench-providers.cjs";

async function nodeSet(distinct: number): Promise<ProviderSet> {
  const one = (name: string) => nodeProvider(name, NODE_FIXTURE);
  const texts: string[] = [];
  for (let i = 0; i < distinct; i++) texts.push(await one(`distinct:${i}`));
  return { trivial: await one("trivial"), io: await one("io"), cpu: await one("cpu"), crud: await one("crud"), echo: await one("echo"), distinct: texts };
}

function pythonSet(distinct: number): ProviderSet {
  const out = execFileSync(VENV_PYTHON, [`${BENCH_DIR}python_bench_providers.py`, "crud", "echo", `distinct:0-${distinct}`], {
    cwd: BENCH_DIR,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  const bench = JSON.parse(out) as Record<string, string>;
  return {
    trivial: pythonProvider("minimal"),
    io: pythonProvider("sleepy"),
    cpu: pythonProvider("cpu"),
    crud: bench.crud,
    echo: bench.echo,
    distinct: Array.from({ length: distinct }, (_, i) => bench[`distinct:${i}`]),
  };
}

/** Both languages' payloads; `distinct` of the distinct providers in each. */
export async function providerSets(distinct: number): Promise<Record<Language, ProviderSet>> {
  const python = pythonSet(distinct);
  const nodejs = await nodeSet(distinct);
  const unique = (s: ProviderSet) => new Set(s.distinct).size === s.distinct.length;
  if (!unique(python) || !unique(nodejs)) throw new Error("the distinct providers' payloads are not all distinct");
  return { nodejs, python };
}

/**
 * A property bag of about `bytes` bytes (as JSON): records of a few fields
 * each, like the objects real providers pass around, not one long string.
 */
export function propertyBag(bytes: number): Record<string, unknown> {
  const records: unknown[] = [];
  const filler = "abcdefghijklmnopqrstuvwxyz0123456789".repeat(23).slice(0, 800);
  const perRecord = JSON.stringify({ id: 0, name: "item-00000", enabled: true, weight: 0.5, tags: ["a", "b", "c"], text: filler }).length + 1;
  for (let i = 0; i < Math.max(1, Math.round(bytes / perRecord)); i++) {
    records.push({ id: i, name: `item-${String(i).padStart(5, "0")}`, enabled: i % 2 === 0, weight: i / 7, tags: ["a", "b", "c"], text: filler });
  }
  return { records };
}
