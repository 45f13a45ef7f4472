// The conformance report: a table for people, JSON for machines (junit.ts: JUnit XML
// for CI), and the exit code.
import type { Verdict } from "./driver.js";
import type { Report } from "./run.js";

/** The table's word for a verdict. */
export function label(v: Verdict): string {
  if (v.status === "deliberate") return v.side === "reference" ? "deliberate (reference behaviour)" : "deliberate (ours)";
  return v.status;
}

/** One line per case, a failure's difference indented below it. */
export function verdictLines(v: Verdict): string[] {
  const lines = [`${label(v).padEnd(32)} ${v.id}  ${v.title}`];
  if (v.status === "deliberate" && v.doc) lines.push(`${" ".repeat(33)}documented difference: ${v.doc}${docsCommand(v.doc)}`);
  if (v.message) for (const l of v.message.split("\n")) lines.push(`${" ".repeat(33)}${l}`);
  return lines;
}

/** For a doc that starts with docs/<name>.md, the command that prints it to an installed user. */
export function docsCommand(doc: string): string {
  const name = /^docs\/([\w-]+)\.md/.exec(doc)?.[1];
  return name ? ` (pulumi-dynamic-host docs ${name})` : "";
}

export function header(r: Pick<Report, "language" | "plugin" | "reference">): string {
  return r.reference
    ? `conformance (${r.language}): ${r.plugin} side by side with the reference ${r.reference}`
    : `conformance (${r.language}): ${r.plugin} against the recorded expectations`;
}

export function summary(r: Report): string {
  const { pass, fail, deliberate, notRun } = r.counts;
  const parts = [`${pass} pass`, `${deliberate} deliberate (answered as recorded)`, `${fail} fail`];
  if (notRun > 0) parts.push(`${notRun} not run (each needs something this machine lacks; not a failure)`);
  return `${r.verdicts.length} cases: ${parts.join(", ")} — ${r.ok ? "conforms" : "does not conform"}`;
}

export function toJson(r: Report): string {
  return JSON.stringify(
    {
      language: r.language,
      plugin: r.plugin,
      reference: r.reference ?? null,
      recordedWith: r.recordedWith,
      pluginSdk: r.pluginSdk ?? null,
      ok: r.ok,
      counts: r.counts,
      cases: r.verdicts.map((v) => ({ id: v.id, title: v.title, status: v.status, side: v.side ?? null, doc: v.doc ?? null, message: v.message ?? null })),
    },
    null,
    2,
  );
}

/** 0 when no case failed and one ran (deliberate differences answered as recorded pass; not run is no failure); 1 otherwise. */
export const exitCode = (r: Report): number => (r.ok ? 0 : 1);
