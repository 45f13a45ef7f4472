// Where in the user's code a Node provider failed, and a hint for the common
// mistakes: the block the Node adapter adds below a user error's text.
//
// What the payload allows: the closure serializer writes each function's own
// source verbatim into `__provider` (its header rewritten as
// `function /*name*/(…)`, wrapped in generated `__fN` functions), with no
// source map and no file name. So a stack frame in the provider text
// (pulumi-dynamic-provider/<hash>.js:L:C, ./loader.ts) is turned into
// - the function's name, from the header's comment (an arrow function has
//   none), and the line within that function;
// - the program file and line, when the lines of that function up to the
//   failing one occur verbatim, once, in a JavaScript or TypeScript file of the
//   program directory (outside node_modules): true of a JavaScript program,
//   usually not of a TypeScript one (the serializer sees the compiled code).
// Frames of the generated wrappers, of the host, of Node's internals and of
// node_modules are left out; frames in the program's own files (a provider by
// reference, a module it requires) are kept as they are.
import fs from "node:fs";
import path from "node:path";

/** How the block's parts begin (test/helpers/client.ts splits them off to compare the rest with the reference's text). */
export const WHERE_HEADING = "\n\n  where: ";
export const HINT_HEADING = "\n\n  hint: ";

/** What the adapter knows to place a frame: the provider texts by their file names, and the program directory. */
export interface FrameSources {
  textOf(fileName: string): string | undefined;
  cwd: string;
}

const PROVIDER_FILE = /^pulumi-dynamic-provider\/[0-9a-f]+\.js$/;
const FRAME = /^\s*at (?:(.*?) \()?(.+?):(\d+):(\d+)\)?$/;

/** The user's frames of `stack`, placed as well as the payload allows, one "at …" line each. */
export function userFrames(stack: unknown, sources: FrameSources): string[] {
  if (typeof stack !== "string") return [];
  const out: string[] = [];
  for (const raw of stack.split("\n")) {
    const m = FRAME.exec(raw);
    if (!m) continue;
    const [, fn, file, line, column] = m;
    if (PROVIDER_FILE.test(file)) {
      const text = sources.textOf(file);
      const placed = text === undefined ? undefined : placeInText(text, Number(line), Number(column), sources.cwd);
      if (placed) out.push(`    at ${placed}`);
      continue;
    }
    const abs = file.startsWith("file://") ? file.slice(7) : file;
    if (path.isAbsolute(abs) && isProgramFile(abs, sources.cwd)) {
      out.push(`    at ${fn ? `${fn} ` : ""}(${path.relative(sources.cwd, abs)}:${line}:${column})`);
    }
  }
  return out;
}

/** A hint for a mistake `err` looks like, or undefined. */
export function hintFor(err: unknown, method: string): string | undefined {
  const e = err as { name?: unknown; message?: unknown } | null;
  const message = e && typeof e === "object" ? String(e.message ?? "") : "";
  const read = /^Cannot read properties of (undefined|null) \(reading '(.*)'\)/.exec(message);
  if (read) {
    return (
      `${method} read '${read[2]}' of a value that is ${read[1]}: often an input the resource was not given ` +
      `(a missing key of the inputs, or a misspelt one), or a value that was not awaited`
    );
  }
  return undefined;
}

/**
 * The block to put below a user error's text: the operation and the
 * resource, the user's frames (most recent first, as Node prints them) and a
 * hint when the error looks like a common mistake.
 */
export function whereBlock(err: unknown, operation: string, urn: string, sources: FrameSources): string {
  let frames: string[] = [];
  try {
    frames = userFrames((err as { stack?: unknown } | null)?.stack, sources);
  } catch {
    frames = [];
  }
  const hint = hintFor(err, operation.toLowerCase());
  const where = `${WHERE_HEADING}${operation} ${urn || "(no urn)"}` + (frames.length > 0 ? `, in the provider's code:\n${frames.join("\n")}` : "");
  return where + (hint ? `${HINT_HEADING}${hint}` : "");
}

/**
 * Frame (line, column) of the provider text as "name (file:line:col)" or
 * "name (line N of name in the serialized provider)"; undefined for a line
 * of the generated wrappers.
 */
function placeInText(text: string, line: number, column: number, cwd: string): string | undefined {
  // Lines as V8 numbers them: a function written in a CRLF file keeps its \r\n in the text.
  const lines = text.split(LINE_BREAK);
  const at = line - 1;
  if (at < 0 || at >= lines.length) return undefined;
  let header = -1;
  for (let i = at; i >= 0; i--) {
    if (/^function __/.test(lines[i]) || /^\s+\}\)\.apply\(/.test(lines[i])) return undefined;
    if (lines[i].startsWith("return ")) {
      header = i;
      break;
    }
  }
  if (header < 0) return undefined;
  const named = /\/\*([^*]+)\*\//.exec(lines[header]);
  const name = named ? named[1] : "an arrow function";
  const offset = at - header;
  const located = offset > 0 ? locate(cwd, lines.slice(header + 1, at + 1)) : undefined;
  if (located) return `${name} (${located.file}:${located.line + offset - 1}:${column})`;
  // On the header line itself (a function written on one line, or failing before its first line break):
  // the serializer rewrote the line's start, so it is found by its body up to the column instead.
  const onHeader = offset === 0 ? locateHeader(cwd, lines[header], column, named?.[1]) : undefined;
  if (onHeader) return `${name} (${onHeader.file}:${onHeader.line}:${onHeader.column})`;
  return `${name} (line ${offset + 1} of ${name} in the serialized provider, column ${column})`;
}

/**
 * Where the serializer's header line `return [async] function /*name*\/(params) { body…` (or an arrow
 * function's `return (params) => body…`) failed at `column`, in the program's files: the one line that
 * holds the function's name and its body's text from the body's start up to the column (a TypeScript
 * header's parameter types and return type are not in the serialized text, so the line's start cannot be
 * matched, but a one-line body usually is the compiled text verbatim).
 */
function locateHeader(cwd: string, header: string, column: number, name: string | undefined): (Located & { column: number }) | undefined {
  const start = bodyStart(header);
  if (start === undefined || column - 1 <= start) return undefined;
  const body = header.slice(start, column - 1);
  if (body.trim().length < (name ? 4 : 8)) return undefined;
  let found: (Located & { column: number }) | undefined;
  for (const { file, text } of filesOf(cwd)) {
    const fileLines = text.split("\n");
    for (let i = 0; i < fileLines.length; i++) {
      const l = fileLines[i];
      const at = l.indexOf(body);
      if (at < 0 || (name !== undefined && !new RegExp(`\\b${name.replace(/[$]/g, "\\$")}\\b`).test(l.slice(0, at)))) continue;
      if (found || l.indexOf(body, at + 1) >= 0) return undefined;
      found = { file, line: i + 1, column: at + body.length + 1 };
    }
  }
  return found;
}

/** Where the body of the function on a serializer's header line starts (its `{`, or an arrow's expression). */
function bodyStart(header: string): number | undefined {
  const comment = header.indexOf("*/");
  let i = header.indexOf("(", comment >= 0 ? comment : 0);
  if (i < 0) return undefined;
  // The parameter list, to its matching parenthesis (strings and templates in defaults are rare; a miss
  // only leaves the frame unplaced).
  let depth = 0;
  for (; i < header.length; i++) {
    if (header[i] === "(") depth++;
    else if (header[i] === ")" && --depth === 0) break;
  }
  if (i >= header.length) return undefined;
  const rest = header.slice(i + 1);
  const m = /^\s*(=>\s*)?/.exec(rest)!;
  return i + 1 + m[0].length;
}

interface Located {
  file: string;
  /** 1-based line of the first of the lines looked for. */
  line: number;
}

/** A line break as V8 counts one: \r\n, \r or \n (files saved on Windows have \r\n). */
const LINE_BREAK = /\r\n|\r|\n/;

const SOURCE_EXTENSIONS = new Set([".js", ".cjs", ".mjs", ".ts", ".cts", ".mts"]);
const MAX_FILES = 500;
const MAX_FILE_BYTES = 1 << 20;
const programFiles = new Map<string, { file: string; text: string }[]>();

/** Where `body` (consecutive lines) occurs verbatim exactly once among the program's files. */
function locate(cwd: string, body: string[]): Located | undefined {
  const needle = body.join("\n");
  if (needle.trim().length < 8) return undefined;
  let found: Located | undefined;
  for (const { file, text } of filesOf(cwd)) {
    const first = text.indexOf(needle);
    if (first < 0) continue;
    if (found || text.indexOf(needle, first + 1) >= 0) return undefined;
    found = { file, line: text.slice(0, first).split("\n").length };
  }
  return found;
}

/** The program's source files, line breaks as \n (read once per process, on the first error that needs them). */
function filesOf(cwd: string): { file: string; text: string }[] {
  let files = programFiles.get(cwd);
  if (files) return files;
  files = [];
  const pending = [cwd];
  while (pending.length > 0 && files.length < MAX_FILES) {
    const dir = pending.shift()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile() && SOURCE_EXTENSIONS.has(path.extname(entry.name))) {
        try {
          if (fs.statSync(full).size <= MAX_FILE_BYTES) files.push({ file: path.relative(cwd, full), text: fs.readFileSync(full, "utf8").replace(/\r\n?/g, "\n") });
        } catch {
          // unreadable: not a place to point at
        }
      }
    }
  }
  programFiles.set(cwd, files);
  return files;
}

function isProgramFile(file: string, cwd: string): boolean {
  const rel = path.relative(cwd, file);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel) && !rel.split(path.sep).includes("node_modules");
}
