// The `--plugin` / `--reference` command line of the conformance kit, as the
// user typed it in their folder. The kit runs plugins in a folder of its own
// (the program folder it makes inside the project), so the relative paths of
// the command are taken from the user's folder first: the words a user means
// as paths are made absolute before the command reaches `sh -c 'exec …'`.
//
// The rule (docs/conformance.md, "Running the kit"): the command is split into
// words as sh splits a simple command (blanks, single and double quotes,
// backslashes; a leading `~/` is the home folder). Then
// - the first word, the program: with a `/` it is a path, taken from the
//   user's folder, and must be a file that can be run; without one it is looked
//   up on PATH, as sh does, and must be found there;
// - every later word that starts with `./`, `../` or `~/` is a path, taken from
//   the user's folder, and must exist;
// - every later word with a `/` inside (`my-host/plugin.js`) that names an
//   existing file or folder from the user's folder is made absolute too; other
//   words (`-u`, `-m`, `pulumi.dynamic`, `@scope/name`) are left as they are.
// A command using more of sh than words and quotes (`$VAR`, `;`, `|`, `&&`,
// redirections, backquotes) is passed on unchanged: its paths are the user's
// to make absolute.
import fs from "node:fs";
import path from "node:path";
import { isExecutableFile } from "../host/files/file-probe.js";

/** Why a plugin command was refused before any plugin started (a usage error: exit 2). */
export class CommandError extends Error {}

const SHELL_SYNTAX = /[$`;|&<>(){}*?[\]!#]/;

/** The words of a simple sh command, or undefined when it uses more of sh than words and quotes. */
export function shellWords(command: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  const add = (s: string) => (word = (word ?? "") + s);
  while (i < command.length) {
    const c = command[i];
    if (c === " " || c === "\t" || c === "\n") {
      if (word !== undefined) words.push(word);
      word = undefined;
      i++;
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return undefined;
      add(command.slice(i + 1, end));
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      let s = "";
      for (; j < command.length && command[j] !== '"'; j++) {
        if (command[j] === "\\" && j + 1 < command.length && '"\\$`\n'.includes(command[j + 1])) s += command[++j];
        else if ("$`".includes(command[j])) return undefined;
        else s += command[j];
      }
      if (j >= command.length) return undefined;
      add(s);
      i = j + 1;
    } else if (c === "\\") {
      if (i + 1 >= command.length) return undefined;
      add(command[i + 1]);
      i += 2;
    } else if (SHELL_SYNTAX.test(c) || (c === "~" && word === undefined && command[i + 1] !== "/" && i + 1 < command.length && !/\s/.test(command[i + 1]))) {
      return undefined;
    } else {
      add(c);
      i++;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** A word for sh, quoted so that it stays one word with this exact text. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const isExplicitlyRelative = (w: string) => w === "." || w === ".." || w.startsWith("./") || w.startsWith("../");

/** `word` as a path from `cwd` (a leading `~/` from `home`). */
function fromCwd(word: string, cwd: string, home: string | undefined): string {
  if (word === "~" || word.startsWith("~/")) {
    if (!home) throw new CommandError(`${word} starts with ~ but HOME is not set`);
    return path.join(home, word.slice(1));
  }
  return path.resolve(cwd, word);
}

/** Where sh would find `name` on `PATH`, or undefined. */
export function onPath(name: string, PATH: string | undefined): string | undefined {
  for (const dir of (PATH ?? "").split(path.delimiter)) {
    const file = path.join(dir || ".", name);
    if (isExecutableFile(file)) return file;
  }
  return undefined;
}

export interface Resolved {
  /** The command for `sh -c 'exec <command> "$@"'`, its paths absolute. */
  command: string;
  /** The words, as resolved (undefined: a command of more sh than words, passed on unchanged). */
  words?: string[];
}

/**
 * The plugin command `command`, typed in `cwd`, with the paths the user meant made absolute; throws
 * CommandError (naming the option, the word and the folder) for a program that is not there.
 * `option` is how the message names where the command came from (`--plugin`).
 */
export function resolvePluginCommand(command: string, option: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Resolved {
  const words = shellWords(command);
  if (words === undefined) return { command };
  if (words.length === 0) throw new CommandError(`${option} needs a command (the plugin to run)`);
  const [program, ...args] = words;
  const out: string[] = [];
  if (program.includes("/") || program.startsWith("~")) {
    const file = fromCwd(program, cwd, env.HOME);
    if (!fs.existsSync(file)) throw new CommandError(`${option}: ${program} does not exist (a relative path is taken from the current folder, ${cwd})`);
    if (!isExecutableFile(file)) throw new CommandError(`${option}: ${program} (${file}) is not an executable file; to run a script, name its interpreter first (e.g. "node ${program}" or "sh ${program}")`);
    out.push(file);
  } else {
    if (!onPath(program, env.PATH)) {
      const keyword = program === "reference" ? ` (the word "reference" names Pulumi's own plugin for --language python only; for Node give its command, e.g. "node node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js")` : "";
      throw new CommandError(`${option}: ${program} is not a command found on PATH${keyword}`);
    }
    out.push(program);
  }
  for (const a of args) {
    if (isExplicitlyRelative(a) || a === "~" || a.startsWith("~/")) {
      const p = fromCwd(a, cwd, env.HOME);
      if (!fs.existsSync(p)) throw new CommandError(`${option}: ${a} does not exist (a relative path is taken from the current folder, ${cwd})`);
      out.push(p);
    } else if (a.includes("/") && !path.isAbsolute(a) && !a.startsWith("-") && fs.existsSync(path.resolve(cwd, a))) {
      out.push(path.resolve(cwd, a));
    } else out.push(a);
  }
  return { command: out.map(shellQuote).join(" "), words: out };
}
