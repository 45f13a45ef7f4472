// The conformance report as JUnit XML (`conformance --junit FILE`), the format CI
// systems read test results from (GitLab, Jenkins, GitHub actions' reporters):
// one <testsuite> per session, one <testcase> per case (classname the session id,
// name the case id and title), a failure as <failure> with what differed, a case
// not run as <skipped> with what it needs, a deliberate difference answered as
// recorded as a passed case with a <property> naming the side and the document.
import type { Verdict } from "./driver.js";
import type { Report } from "./run.js";

/** XML 1.0 text: the five escapes, and characters XML cannot hold at all (C0 controls but tab, LF, CR; lone surrogates; U+FFFE/F) replaced. */
export function xmlText(s: string): string {
  return s
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** The session id of a case id: all but its last part ("python/startup/5-toolchain-uv" → "python/startup"). */
const sessionOf = (id: string) => id.slice(0, id.lastIndexOf("/"));

function testcase(v: Verdict): string {
  const attrs = `classname="${xmlText(sessionOf(v.id))}" name="${xmlText(`${v.id}  ${v.title}`)}" time="${(v.seconds ?? 0).toFixed(3)}"`;
  const inner: string[] = [];
  if (v.status === "deliberate" || v.doc) {
    inner.push("      <properties>");
    if (v.status === "deliberate") inner.push(`        <property name="deliberate" value="${v.side === "reference" ? "reference behaviour" : "ours"}"/>`);
    if (v.doc) inner.push(`        <property name="documented" value="${xmlText(v.doc)}"/>`);
    inner.push("      </properties>");
  }
  if (v.status === "fail") {
    const message = v.message ?? "failed";
    inner.push(`      <failure message="${xmlText(message.split("\n")[0])}" type="does-not-conform">${xmlText(message)}</failure>`);
  }
  if (v.status === "not run") inner.push(`      <skipped message="${xmlText(`not run: ${v.message ?? ""}`)}"/>`);
  return inner.length === 0 ? `    <testcase ${attrs}/>` : `    <testcase ${attrs}>\n${inner.join("\n")}\n    </testcase>`;
}

/** The whole report as a JUnit XML document. */
export function toJunit(r: Report): string {
  const sessions = new Map<string, Verdict[]>();
  for (const v of r.verdicts) sessions.set(sessionOf(v.id), [...(sessions.get(sessionOf(v.id)) ?? []), v]);
  const count = (vs: Verdict[], s: Verdict["status"]) => vs.filter((v) => v.status === s).length;
  const time = (vs: Verdict[]) => vs.reduce((t, v) => t + (v.seconds ?? 0), 0).toFixed(3);
  const name = `conformance (${r.language}): ${r.plugin}${r.reference ? ` beside ${r.reference}` : ""}`;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlText(name)}" tests="${r.verdicts.length}" failures="${r.counts.fail}" errors="0" skipped="${r.counts.notRun}" time="${time(r.verdicts)}">`,
  ];
  for (const [id, vs] of sessions) {
    lines.push(
      `  <testsuite name="${xmlText(id)}" tests="${vs.length}" failures="${count(vs, "fail")}" errors="0" skipped="${count(vs, "not run")}" time="${time(vs)}">`,
    );
    for (const v of vs) lines.push(testcase(v));
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>", "");
  return lines.join("\n");
}
