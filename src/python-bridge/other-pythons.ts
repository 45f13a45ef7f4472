// Workers of Pythons other than the program's: for a resource whose pickle
// holds bytecode of another CPython minor (./pickle/pickle-inspect.ts), the host
// finds an interpreter of that minor (./interpreter/interpreter-search.ts) and runs that
// resource's calls in a small pool of it, given the same cwd, environment and
// stack config as the program's own workers. A pickle no Python found can run
// gets an error that says what to do.
import type { Interpreter } from "./interpreter/interpreter.js";
import { InterpreterSearch, type Found, type Probe, type Search } from "./interpreter/interpreter-search.js";
import type { CodeOrigin } from "./pickle/pickle-inspect.js";
import { WorkerPool } from "./worker/pool.js";

/** Workers of one other Python: enough for a few resources at once, not a second full pool. */
const OTHER_POOL_SIZE = 2;

export class OtherPythons {
  private readonly pools = new Map<string, WorkerPool>();
  private config?: { args: Buffer | undefined };
  private readonly search: InterpreterSearch;

  constructor(
    readonly main: Interpreter,
    private readonly cwd: string,
    search?: InterpreterSearch,
  ) {
    this.search = search ?? new InterpreterSearch(main, cwd);
  }

  /** An interpreter for code of `origin`, or what was tried. */
  find(origin: CodeOrigin): Promise<Search> | undefined {
    return origin.minors ? this.search.find(origin.minors) : undefined;
  }

  /** The pool of `found`'s interpreter, made on first use and given the current stack config. */
  poolFor(found: Found): WorkerPool {
    let pool = this.pools.get(found.probe.python);
    if (!pool) {
      pool = new WorkerPool({ interpreter: found.interpreter, cwd: this.cwd, size: OTHER_POOL_SIZE });
      // No worker is live yet: this only stores the config for the workers it starts.
      if (this.config) void pool.configure(this.config.args);
      this.pools.set(found.probe.python, pool);
    }
    return pool;
  }

  /** Stores the stack config and hands it to the other Pythons' live workers, as the main pool does its own. */
  async configure(args: Buffer | undefined): Promise<void> {
    this.config = { args };
    await Promise.all([...this.pools.values()].map((p) => p.configure(args)));
  }

  cancelAll(): void {
    for (const p of this.pools.values()) p.cancelAll();
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close()));
  }
}

/** "python3.12 (Python 3.12.1, pulumi 3.270.0, dill 0.4.1)" */
export function describeFound(found: Found): string {
  const p = found.probe;
  return `${p.python} (Python ${p.version}, pulumi ${p.pulumi}, dill ${p.dill})`;
}

/** One tried candidate in words: "/x/python3.12: exited with code 127: pyenv: python3.12: command not found" */
function describeTried(p: Probe): string {
  return `${p.python}: ${p.problem ?? "usable"}`;
}

/**
 * The error for a pickle of another Python that no interpreter found can run.
 * `subject` is "<Operation> <urn>: the <class> provider"; `mine` describes the
 * program's Python; `wanted` is e.g. "3.12".
 */
export function driftMessage(opts: { subject: string; origin: CodeOrigin; dill: string; mine: string; search?: Search }): string {
  const { subject, origin, mine, search } = opts;
  const wanted = origin.minors?.length === 1 ? origin.minors[0]! : undefined;
  const wantedText = wanted ? `Python ${wanted}` : origin.describe;
  const tried = search?.tried ?? [];
  const name = wanted ? `python${wanted}` : "that Python";
  const lookedFor = search
    ? `No ${wantedText} with pulumi and dill was found${tried.length ? `; tried ${tried.map(describeTried).join("; ")}` : ""} ` +
      `(the host looks in virtualenvs beside the program's, \`uv python find\`, ${name} on PATH and pyenv's versions). ` +
      `Either install ${wantedText} with pulumi and dill in one of those places (for example a virtualenv next to the ` +
      `program's), and the host runs this resource's provider there;`
    : `The host cannot tell which minor of ${origin.describe.replace(/^Python /, "")} that is, so it does not look for one. ` +
      `Either run the program with the Python that wrote it;`;
  return (
    `${subject} was pickled by ${origin.describe} (${opts.dill}), but this program's Python is ${mine}, ` +
    `and bytecode from another Python version cannot run. ${lookedFor} or run \`pulumi up\` once under the program's ` +
    `current Python: every resource the program still declares and whose update runs gets a __provider pickled by ` +
    `it, but resources whose diff reports no change keep the old pickle in their outputs, and resources removed ` +
    `from the program, replaced resources' old copies, \`pulumi refresh\` and \`pulumi destroy\` still need the old one`
  );
}
