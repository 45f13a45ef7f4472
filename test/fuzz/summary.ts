// The record of a fuzz run: per plugin, how many cases answered, failed, hung
// or crashed it, how long answers took, and which rules each broke. Ours is
// asserted case by case; the reference's row is only recorded, for the
// comparison docs/reliability.md shows. Printed after each mode's run and
// written to .cache/fuzz/summary-<language>.json.
import fs from "node:fs";
import path from "node:path";
import type { Case } from "./cases.js";
import type { Observation, Violation } from "./judge.js";
import { REPO } from "../helpers/paths.js";
import { hex } from "./random.js";

interface Row {
  cases: number;
  ok: number;
  errors: number;
  hung: number;
  crashed: number;
  times: number[];
  /** Cases that broke each rule. */
  kinds: Record<string, number>;
  /** Per shape: cases, and cases with any violation. */
  shapes: Record<string, [number, number]>;
  failing: string[];
}

const emptyRow = (): Row => ({ cases: 0, ok: 0, errors: 0, hung: 0, crashed: 0, times: [], kinds: {}, shapes: {}, failing: [] });

export class FuzzRecord {
  readonly rows: Record<string, Row> = {};

  constructor(readonly language: string) {}

  add(who: string, c: Case, o: Observation, violations: Violation[]): void {
    const row = (this.rows[who] ??= emptyRow());
    row.cases++;
    if (o.hung) row.hung++;
    else if (o.code === 0) row.ok++;
    else row.errors++;
    if (o.exited) row.crashed++;
    if (!o.hung) row.times.push(o.ms);
    for (const kind of new Set(violations.map((v) => v.kind))) row.kinds[kind] = (row.kinds[kind] ?? 0) + 1;
    const shape = (row.shapes[c.shape] ??= [0, 0]);
    shape[0]++;
    if (violations.length > 0) {
      shape[1]++;
      row.failing.push(`${c.shape} ${c.method} ${hex(c.seed)}: ${[...new Set(violations.map((v) => v.kind))].join(", ")}`);
    }
  }

  /** A plain-text table: one column per plugin. */
  table(): string {
    const who = Object.keys(this.rows);
    const line = (label: string, f: (r: Row) => string | number) => `  ${label.padEnd(28)}${who.map((w) => String(f(this.rows[w])).padStart(16)).join("")}`;
    const kinds = [...new Set(who.flatMap((w) => Object.keys(this.rows[w].kinds)))].sort();
    return [
      `fuzz summary, ${this.language} mode`,
      line("", () => "").trimEnd() + who.map((w) => w.padStart(16)).join(""),
      line("cases", (r) => r.cases),
      line("answered OK", (r) => r.ok),
      line("answered with an error", (r) => r.errors),
      line("no answer within the bound", (r) => r.hung),
      line("plugin died", (r) => r.crashed),
      line("answer time median (ms)", (r) => percentile(r.times, 0.5)),
      line("answer time max (ms)", (r) => percentile(r.times, 1)),
      ...kinds.map((k) => line(`cases breaking: ${k}`, (r) => r.kinds[k] ?? 0)),
    ].join("\n");
  }

  write(): string {
    const file = path.join(REPO, ".cache", "fuzz", `summary-${this.language}.json`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const rows = Object.fromEntries(
      Object.entries(this.rows).map(([w, r]) => [w, { ...r, times: undefined, medianMs: percentile(r.times, 0.5), maxMs: percentile(r.times, 1) }]),
    );
    fs.writeFileSync(file, JSON.stringify({ language: this.language, rows }, null, 2));
    return file;
  }
}

export function percentile(xs: number[], q: number): number {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
