// Whether a Node version satisfies a package.json `engines.node` range, for
// doctor's line on the project's @pulumi/pulumi. Covers what packages write
// there: comparators (>=, >, <=, <, =, ^, ~, bare or x versions) joined by
// spaces, alternatives by `||`, and hyphen ranges. Anything else is "unknown",
// never a guess.

type Version = [number, number, number];

export type EnginesVerdict = "satisfied" | "unmet" | "unknown";

export function satisfiesEngines(version: string, range: string): EnginesVerdict {
  const v = parse(version);
  if (!v) return "unknown";
  let sawUnknown = false;
  for (const alternative of range.split("||")) {
    const r = alternativeHolds(v, alternative.trim());
    if (r === true) return "satisfied";
    if (r === undefined) sawUnknown = true;
  }
  return sawUnknown ? "unknown" : "unmet";
}

/** "v22.1.0", "22", "22.x" → [22, 1, 0] / [22, 0, 0]; the count of numbers given, for ^, ~ and x ranges. */
function partial(text: string): { v: Version; given: number } | undefined {
  const m = /^v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?(?:[-+].*)?$/.exec(text.trim());
  if (!m) return undefined;
  const nums = [m[1], m[2], m[3]].map((x) => (x === undefined || x === "x" || x === "*" ? undefined : Number(x)));
  const given = nums.findIndex((x) => x === undefined);
  return { v: [nums[0] ?? 0, nums[1] ?? 0, nums[2] ?? 0], given: given === -1 ? 3 : given };
}

function parse(text: string): Version | undefined {
  return partial(text)?.v;
}

function cmp(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** The version after the last one a partial version covers: 22 → 23.0.0, 22.1 → 22.2.0. */
function after(p: { v: Version; given: number }): Version {
  if (p.given <= 1) return [p.v[0] + 1, 0, 0];
  if (p.given === 2) return [p.v[0], p.v[1] + 1, 0];
  return [p.v[0], p.v[1], p.v[2] + 1];
}

/** True, false, or undefined for syntax this does not read. */
function alternativeHolds(v: Version, alt: string): boolean | undefined {
  if (alt === "" || alt === "*" || alt === "x") return true;
  const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(alt);
  if (hyphen) {
    const lo = partial(hyphen[1]);
    const hi = partial(hyphen[2]);
    return lo && hi ? cmp(v, lo.v) >= 0 && cmp(v, after(hi)) < 0 : undefined;
  }
  const parts = alt.replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1").split(/\s+/);
  for (const part of parts) {
    const m = /^(>=|<=|>|<|=|\^|~)?(.+)$/.exec(part);
    const p = m && partial(m[2]);
    if (!m || !p) return undefined;
    const op = m[1] ?? "";
    const c = cmp(v, p.v);
    const ok =
      op === ">=" ? c >= 0
      : op === ">" ? (p.given < 3 ? cmp(v, after(p)) >= 0 : c > 0)
      : op === "<=" ? (p.given < 3 ? cmp(v, after(p)) < 0 : c <= 0)
      : op === "<" ? c < 0
      : op === "^" ? c >= 0 && cmp(v, p.v[0] > 0 || p.given <= 1 ? [p.v[0] + 1, 0, 0] : p.v[1] > 0 || p.given === 2 ? [0, p.v[1] + 1, 0] : [0, 0, p.v[2] + 1]) < 0
      : op === "~" ? c >= 0 && cmp(v, p.given <= 1 ? [p.v[0] + 1, 0, 0] : [p.v[0], p.v[1] + 1, 0]) < 0
      : c >= 0 && cmp(v, after(p)) < 0;
    if (!ok) return false;
  }
  return true;
}
