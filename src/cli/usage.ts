// Every command's usage, in one table: `pulumi-dynamic-host <command> --help`
// (or -h, or `help <command>`) prints that command's entry to stdout and exits
// 0; a missing or wrong argument prints what is wrong, naming the argument and
// what it needs, then the entry, to stderr, and exits 2 (usageError). The
// global usage (no command, or `help` alone) is every entry in table order.

/** How a message names a document: its path in the package, and the command that prints it. */
export const docReference = (name: string) => `docs/${name}.md (pulumi-dynamic-host docs ${name})`;

/**
 * The arguments of `install` and `uninstall`, in one table: their usage and the message for an
 * unknown argument are both made from it, so neither can leave one out.
 */
export const REGISTRATION_OPTIONS = [
  {
    form: "(nothing)",
    help: `register both plugins (and this command) with the engine next to the pulumi on PATH (no "using … from
                 $PATH" warning); the plugins pulumi ships there are kept as <name>.before-pulumi-dynamic-host`,
  },
  { form: "--project [DIR]", help: "register them for the Pulumi project in DIR (default: here) in its Pulumi.yaml plugins.providers" },
  { form: "--dir DIR", help: "put the plugin names into the folder DIR, to put first on PATH (the engine then warns on every run)" },
  {
    form: "--package NAME",
    help: `(with --project or --dir) the host as pulumi-resource-NAME, serving the types Pulumi.yaml
                 declares as NAME:<module>:<Type> (${docReference("schema")})`,
  },
] as const;

/** The table's forms as a sentence: "nothing, --project [DIR], --dir DIR or --package NAME". */
export function registrationChoices(): string {
  const forms = REGISTRATION_OPTIONS.map((o) => (o.form === "(nothing)" ? "nothing" : o.form === "--package NAME" ? "--package NAME (with --project [DIR] or --dir DIR)" : o.form));
  return `${forms.slice(0, -1).join(", ")} or ${forms[forms.length - 1]}`;
}

const registrationLines = () => REGISTRATION_OPTIONS.map((o) => `  ${o.form.padEnd(14)} ${o.help}`).join("\n");

/** The commands for people, in the order the global usage lists them. */
export const COMMAND_USAGE = {
  install: `usage: pulumi-dynamic-host install [--project [DIR] | --dir DIR] [--package NAME]
${registrationLines()}
  Exit status: 0 installed, 1 could not (the message says why and the ways out), 2 usage error.`,
  uninstall: `usage: pulumi-dynamic-host uninstall [--project [DIR] | --dir DIR] [--package NAME]
  Undoes the matching install (next to pulumi: the kept plugins are put back); touches only what install placed.
  Takes what install takes: ${registrationChoices()}.
  Exit status: 0 done, 1 could not, 2 usage error.`,
  doctor: `usage: pulumi-dynamic-host doctor [--stack-export FILE|-] [--verbose] [DIR]
  Which plugins the engine launches for the program in DIR (default: the current directory), the
  Node and Python they run with, and, given a stack export (\`pulumi stack export --show-secrets >FILE\`;
  - reads stdin), whether each dynamic resource's provider can be loaded there. Runs no provider code.
  One line per finding (ok:, note:, warning:, problem:), then a summary line. A warning: it runs, but the
  engine prints a warning on every run. Outside a project, what only a project needs is a note.
  --verbose: each Python preloader on a line of its own (else one line for them all).
  Exit status: 0 nothing to fix, 1 a warning or a problem found, 2 usage error or unreadable stack export.`,
  inspect: `usage: pulumi-dynamic-host inspect <stack-export.json | -> [--json]
  Lists the dynamic resources of a stack export (\`pulumi stack export --show-secrets >FILE\`; - reads
  stdin) and what each provider references: Node modules it requires, Python modules and classes its
  pickle names, the Python that wrote by-value code, and which resources share one provider. Runs nothing.
  --json prints one JSON array of resources instead.
  Exit status: 0 listed (unreadable payloads are listed as such), 2 usage error or unreadable stack export.`,
  serve: `usage: pulumi-dynamic-host serve <nodejs|python> [--logtostderr] [-v=N] <engine-address>
  Serves as pulumi-resource-pulumi-<language>, as the engine runs it: prints its port, then serves
  until the engine goes away. People rarely need this; \`install\` makes the engine run the plugins.`,
  debug: `usage: pulumi-dynamic-host debug <nodejs|python> [--port N] [--debugger-port N] [--cwd DIR]
  Serves the project's dynamic providers for the engine's attach mode (it prints the
  PULUMI_DEBUG_PROVIDERS to export) with a debugger open: the Node inspector (default port 9229),
  or debugpy in the Python worker (default port 5678). --cwd: the project's folder (default: here).
  See ${docReference("debugging")}.`,
  conformance: `usage: pulumi-dynamic-host conformance --plugin <command> --language <nodejs|python>
                                  [--reference <command>] [--only <id prefix or glob>] [--json]
                                  [--junit FILE] [--other-python <path>] [--sdk-version X.Y.Z]
  Runs the conformance cases against a dynamic-provider plugin started as the engine starts it
  (<command> plus the engine address), with payloads made by the SDK of the project here
  (@pulumi/pulumi from its node_modules; pulumi in the Python its plugin would pick); the kit
  brings its own provider fixtures. A case that needs what this machine lacks (a second Python)
  is "not run", no failure. --junit: also write the report as JUnit XML to FILE.
  Relative paths in <command> (./my-plugin, "node ./host/plugin.js") are taken from the current folder.
  Exit 0 when no case failed, 1 when one did (or the plugin did not start), 2 on a usage error (a
  plugin file that is not there) or no SDK.
  <command> "reference" (with --language python only): \`<python> -u -m pulumi.dynamic\` with the
  interpreter the reference's launcher would pick for the program; --other-python: a Python of another
  CPython minor with pulumi and dill (the version-drift case; otherwise searched for as the plugin
  searches). --sdk-version: the release of Pulumi's SDK the plugin comes from, when the kit cannot tell
  (cases that changed between releases are judged by that release's answers).
  See ${docReference("conformance")}.`,
  schema: `usage: pulumi-dynamic-host schema [--package NAME] [--version V] [DIR]
  Prints the Pulumi package schema of the dynamic types that the project in DIR (default: here) declares
  with types in its Pulumi.yaml: what the plugin's GetSchema answers, for YAML programs and
  \`pulumi package gen-sdk\`. --package NAME: the package whose schema to print (pulumi-nodejs,
  pulumi-python, or a package of your own, e.g. files for types declared as files:index:TextFile),
  when the project declares types of more than one.
  --version: the version the schema states, which the SDKs generated from it take (default 0.0.0).
  Exit status: 0 printed, 1 no schema (the message says why), 2 usage error. See ${docReference("schema")}.`,
  docs: `usage: pulumi-dynamic-host docs [NAME]
  Without NAME, lists the documents that come with this host; with one (e.g. import-and-repair),
  prints it. Messages that name docs/<NAME>.md mean this.`,
  version: `usage: pulumi-dynamic-host version
  Prints this host's version (the plugins' GetPluginInfo answers the same).`,
  help: `usage: pulumi-dynamic-host help [COMMAND]
  Prints the usage of COMMAND (the same as \`pulumi-dynamic-host COMMAND --help\`), or of every command.`,
} as const;

export type CommandName = keyof typeof COMMAND_USAGE;

export function isCommand(name: string | undefined): name is CommandName {
  return name !== undefined && Object.prototype.hasOwnProperty.call(COMMAND_USAGE, name);
}

/** Every command's usage, one after another. */
export function globalUsage(): string {
  return `pulumi-dynamic-host: Pulumi's Node and Python dynamic-provider plugins in one host.\n\n${Object.values(COMMAND_USAGE).join("\n\n")}\n`;
}

/** `-h` or `--help` anywhere among a command's arguments asks for its usage. */
export function asksForHelp(args: readonly string[]): boolean {
  return args.includes("--help") || args.includes("-h");
}

/** Prints `command`'s usage to stdout; exit 0. */
export function printUsage(command: CommandName): number {
  process.stdout.write(`${COMMAND_USAGE[command]}\n`);
  return 0;
}

/** "pulumi-dynamic-host <command>: <problem>" and the command's usage to stderr; exit 2. */
export function usageError(command: CommandName, problem: string): number {
  process.stderr.write(`pulumi-dynamic-host ${command}: ${problem}\n${COMMAND_USAGE[command]}\n`);
  return 2;
}
