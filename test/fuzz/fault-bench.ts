// The workbench of the fault suite: one plugin started like the engine starts
// it, requests sent with their answers timed, the provider's "sleeping" lines
// awaited (so a fault hits a request known to be inside the provider), and the
// figures of each fault recorded for docs/reliability.md.
import fs from "node:fs";
import path from "node:path";
import type { Language, Payloads } from "./cases.js";
import { REPO } from "../helpers/paths.js";
import { Plugin, type LaunchOptions, type PluginKind } from "../helpers/plugin.js";
import { ProviderClient } from "../helpers/client.js";
import { encodeRequest, fuzzUrn, type ResourceRpc } from "./requests.js";
import { sendRaw } from "./subject.js";
import { percentile } from "./summary.js";
import { num, str, type FStruct } from "./values.js";

/** One request of a fault and how it was answered. */
export interface Timed {
  role: string;
  urn: string;
  code: number;
  details: string;
  ms: number;
  /** No answer within the bound. */
  lost: boolean;
  /** performance.now() when it was sent and when it was answered (or given up). */
  sentAt: number;
  answeredAt: number;
}

/** The props of a request that sleeps `ms` in the provider, announcing itself on stderr as `tag`. */
export const sleeping = (ms: number, tag?: string): FStruct => [["__fuzz", str("sleep")], ["ms", num(ms)], ...(tag ? ([["announce", str(tag)]] as FStruct) : [])];

export class FaultBench {
  readonly client: ProviderClient;
  private outFrom: number;

  private constructor(
    readonly who: PluginKind,
    readonly language: Language,
    readonly plugin: Plugin,
    readonly payloads: Payloads & { async: string },
    readonly bound: number,
  ) {
    this.client = new ProviderClient(`127.0.0.1:${plugin.port}`);
    this.outFrom = plugin.stdout.length;
  }

  static async open(who: PluginKind, language: Language, payloads: Payloads & { async: string }, bound: number, launch: LaunchOptions = {}): Promise<FaultBench> {
    const plugin = await Plugin.launch(who, { language, ...launch });
    return new FaultBench(who, language, plugin, payloads, bound);
  }

  urn(name: string): string {
    return fuzzUrn(`pulumi-${this.language}:dynamic:Resource`, name);
  }

  /** Sends one resource request to the good (or async) provider with `props`, and times its answer. */
  async send(role: string, method: ResourceRpc, name: string, props: FStruct, opts: { timeout?: number; async?: boolean } = {}): Promise<Timed> {
    const urn = this.urn(name);
    const bag: FStruct = [["__provider", str(opts.async ? this.payloads.async : this.payloads.good)], ...props];
    const bagName = method === "Create" || method === "Delete" || method === "Read" ? "properties" : "news";
    const id = method === "Create" || method === "Check" ? undefined : "fault-id";
    const sentAt = performance.now();
    const a = await sendRaw(this.client, method, encodeRequest({ method, urn, id, timeout: opts.timeout, bags: { [bagName]: bag, ...(method === "Update" ? { olds: bag } : {}) } }), this.bound);
    return { role, urn, code: a.code, details: a.details, ms: a.ms, lost: a.hung, sentAt, answeredAt: performance.now() };
  }

  async cancel(): Promise<Timed> {
    const sentAt = performance.now();
    const a = await sendRaw(this.client, "Cancel", Buffer.alloc(0), this.bound);
    return { role: "Cancel", urn: "", code: a.code, details: a.details, ms: a.ms, lost: a.hung, sentAt, answeredAt: performance.now() };
  }

  /** Resolves once the provider announced `tag` on stderr (it is inside the method). */
  announced(...tags: string[]): Promise<void> {
    return this.plugin.until(() => tags.every((t) => this.plugin.stderr.includes(` ${t} sleeping\n`)), `the provider to announce ${tags.join(", ")}`, this.bound);
  }

  /** The plugin's processes other than itself (our Python workers). */
  workerPids(): number[] {
    return this.plugin.groupPids().filter((pid) => pid !== this.plugin.child.pid);
  }

  get alive(): boolean {
    return this.plugin.child.exitCode === null && this.plugin.child.signalCode === null;
  }

  /** What became of the plugin, in a few words. */
  get state(): string {
    const c = this.plugin.child;
    if (!this.alive) return `exited (code ${c.exitCode}, signal ${c.signalCode})`;
    try {
      const stat = fs.readFileSync(`/proc/${c.pid}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("T")) return "stopped (it has no worker: the plugin itself was stopped)";
    } catch {
      // it ended while we looked
    }
    return "keeps serving";
  }

  /** Lines on stdout since the bench opened, and stderr lines the provider did not write. */
  noise(): string[] {
    const stdout = this.plugin.stdout.slice(this.outFrom).map((l) => `stdout: ${l}`);
    const stderr = this.plugin.stderr.split("\n").filter((l) => l !== "" && !/^fuzz \w+ \S+ sleeping$/.test(l)).map((l) => `stderr: ${l}`);
    return [...stdout, ...stderr];
  }

  async close(): Promise<void> {
    this.client.close();
    for (const pid of this.plugin.groupPids()) {
      try {
        process.kill(pid, "SIGCONT");
      } catch {
        // already gone
      }
    }
    await this.plugin.stop();
  }
}

/** The figures of one fault on one plugin. */
export interface FaultFigures {
  fault: string;
  language: Language;
  who: PluginKind;
  requests: number;
  ok: number;
  failed: number;
  lost: number;
  /** Time to answer, from the fault (or the request's sending, when later). */
  medianMs: number;
  maxMs: number;
  outcome: string;
}

export function figures(fault: string, b: FaultBench, answers: Timed[], outcome: string, faultAt?: number): FaultFigures {
  const answered = answers.filter((a) => !a.lost);
  // An answer that came before the fault (a request that failed on its own) is timed from its sending.
  const times = answered.map((a) => Math.round(a.answeredAt - (faultAt !== undefined && a.answeredAt >= faultAt ? Math.max(a.sentAt, faultAt) : a.sentAt)));
  return {
    fault, language: b.language, who: b.who, requests: answers.length,
    ok: answered.filter((a) => a.code === 0).length, failed: answered.filter((a) => a.code !== 0).length, lost: answers.length - answered.length,
    medianMs: percentile(times, 0.5), maxMs: percentile(times, 1), outcome,
  };
}

export function writeFigures(all: FaultFigures[]): string {
  const file = path.join(REPO, ".cache", "fuzz", "faults.json");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(all, null, 2));
  return file;
}

export function figuresTable(all: FaultFigures[]): string {
  const head = "fault figures (requests: ok / failed / lost; time to answer from the fault: median / max ms)";
  return [head, ...all.map((f) => `  ${`${f.fault} [${f.language}, ${f.who}]`.padEnd(62)} ${f.ok}/${f.failed}/${f.lost}  ${f.medianMs}/${f.maxMs} ms  ${f.outcome}`)].join("\n");
}
