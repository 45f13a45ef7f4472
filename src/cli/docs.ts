// `pulumi-dynamic-host docs [NAME]`: the documents that come with the host
// (docs/*.md, from the npm package's folder or the single executable's
// embedded assets), so that a message naming docs/<NAME>.md reaches a user who
// has only the installed host. Without NAME: one line per user document, its name
// and title (the contributors' documents are left out of the list); with NAME
// (with or without docs/ and .md): the document's text.
import { assetNames, readAsset } from "../host/files/assets.js";
import { usageError } from "./usage.js";

type Out = (line: string) => void;

/**
 * Documents for working on the host itself (its layout, tests, packaging, benchmarks): shipped with the
 * rest, printed by name (a message may name one), but not in the list, which is the user's.
 */
export const CONTRIBUTOR_DOCUMENTS: ReadonlySet<string> = new Set(["layout", "testing", "test-suites", "packaging", "performance"]);

function documents(): Map<string, string> {
  const names = assetNames("docs").filter((n) => n.endsWith(".md"));
  return new Map(names.map((n) => [n.slice("docs/".length, -".md".length), n]));
}

export function runDocs(args: readonly string[], out: Out): number {
  const docs = documents();
  if (args.length > 1) return usageError("docs", `takes at most one NAME, got ${JSON.stringify(args.join(" "))}`);
  if (docs.size === 0) {
    process.stderr.write("pulumi-dynamic-host docs: this installation holds no docs/ folder\n");
    return 1;
  }
  if (args.length === 0) {
    const listed = [...docs].filter(([name]) => !CONTRIBUTOR_DOCUMENTS.has(name));
    const width = Math.max(...listed.map(([k]) => k.length));
    for (const [name, file] of listed) out(`${name.padEnd(width)}  ${title(readAsset(file))}`);
    out("");
    out("pulumi-dynamic-host docs NAME prints one.");
    return 0;
  }
  const wanted = args[0].replace(/#.*$/, "").replace(/^docs\//, "").replace(/\.md$/, "");
  const file = docs.get(wanted);
  if (!file) return usageError("docs", `no document ${JSON.stringify(args[0])}; there are: ${[...docs.keys()].filter((n) => !CONTRIBUTOR_DOCUMENTS.has(n)).join(", ")}`);
  process.stdout.write(readAsset(file));
  return 0;
}

function title(text: string): string {
  const first = text.split("\n").find((l) => l.startsWith("# "));
  return first ? first.slice(2).trim() : "";
}
