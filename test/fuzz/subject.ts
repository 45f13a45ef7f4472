// A plugin under fuzz: started like the engine starts it, sent raw request
// bytes, and watched. After each case a marker request (the good provider
// printing one line to stdout and one to stderr) proves the plugin still
// serves and fences its output: what arrived between the case's start and the
// marker's lines is the case's own. A plugin that died is started again for
// the next case (the death is the case's violation); a call that never
// answered gets a fresh client, since grpc-js cannot be trusted with that
// connection any more.
import type { Payloads } from "./cases.js";
import type { Observation } from "./judge.js";
import { encodeRequest, fuzzUrn, type Rpc } from "./requests.js";
import { str, type FStruct } from "./values.js";
import { ProviderClient } from "../helpers/client.js";
import { Plugin, type LaunchOptions, type PluginKind } from "../helpers/plugin.js";

export interface Answer {
  hung: boolean;
  code: number;
  details: string;
  body?: Buffer;
  ms: number;
}

/** One unary call with raw bytes each way; a call not answered within `bound` is cancelled and reported hung. */
export function sendRaw(client: ProviderClient, method: Rpc, bytes: Buffer, bound: number): Promise<Answer> {
  return new Promise((resolve) => {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    let settled = false;
    const call = client.raw.makeUnaryRequest(
      `/pulumirpc.ResourceProvider/${method}`,
      (x: Buffer) => x,
      (x: Buffer) => x,
      bytes,
      (err: any, body: Buffer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(err ? { hung: false, code: err.code, details: String(err.details ?? ""), ms: ms() } : { hung: false, code: 0, details: "", body, ms: ms() });
      },
    );
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      call.cancel();
      resolve({ hung: true, code: -1, details: "", ms: ms() });
    }, bound);
  });
}

export class Subject {
  plugin?: Plugin;
  private client?: ProviderClient;
  private marks = 0;
  /** Times the plugin had to be started again after it died. */
  restarts = 0;

  constructor(
    readonly kind: PluginKind,
    readonly language: "nodejs" | "python",
    readonly bound: number,
    private readonly payloads: () => Payloads,
    private readonly launch: LaunchOptions = {},
  ) {}

  async start(): Promise<void> {
    this.plugin = await Plugin.launch(this.kind, { language: this.language, ...this.launch });
    this.client = new ProviderClient(`127.0.0.1:${this.plugin.port}`);
  }

  async stop(): Promise<void> {
    this.client?.close();
    await this.plugin?.stop();
  }

  private get alive(): boolean {
    const c = this.plugin?.child;
    return !!c && c.exitCode === null && c.signalCode === null;
  }

  async observe(method: Rpc, bytes: Buffer): Promise<Observation> {
    if (!this.alive) {
      this.restarts++;
      this.client?.close();
      await this.start();
    }
    const p = this.plugin!;
    const outFrom = p.stdout.length;
    const errFrom = p.stderr.length;
    const answer = await sendRaw(this.client!, method, bytes, this.bound);
    if (answer.hung) this.freshClient();
    const unfenced = this.alive ? await this.mark(outFrom) : undefined;
    const exit = p.child.exitCode !== null || p.child.signalCode !== null ? `exit code ${p.child.exitCode}, signal ${p.child.signalCode}` : undefined;
    const marker = `fuzz mark ${this.kind}-${this.marks}`;
    return {
      ...answer,
      exited: exit ?? (unfenced && !answer.hung ? `it stopped serving: ${unfenced}` : undefined),
      stdout: p.stdout.slice(outFrom).filter((l) => l !== marker),
      stderr: p.stderr.slice(errFrom).replace(`${marker}\n`, ""),
    };
  }

  private freshClient(): void {
    this.client?.close();
    this.client = new ProviderClient(`127.0.0.1:${this.plugin!.port}`);
  }

  /**
   * Sends the marker and waits for its two lines. The stderr line is watched
   * for in the stream itself, chunk by chunk: a long run's recorded stderr
   * holds hundreds of MB of echoed errors, and searching it (which copies it
   * whole) on every chunk of a case's 8 MB echo outlasts the bound. Says what
   * went wrong if the lines did not come.
   */
  private async mark(outFrom: number): Promise<string | undefined> {
    const marker = `${this.kind}-${++this.marks}`;
    const line = `fuzz mark ${marker}`;
    const p = this.plugin!;
    const stderrLine = this.watchStderr(`${line}\n`);
    const bag: FStruct = [["__provider", str(this.payloads().good)], ["__fuzz", str("mark")], ["mark", str(marker)]];
    const bytes = encodeRequest({ method: "Create", urn: fuzzUrn(`pulumi-${this.language}:dynamic:Resource`, "marker"), bags: { properties: bag } });
    try {
      const answer = await sendRaw(this.client!, "Create", bytes, this.bound);
      if (answer.hung) {
        this.freshClient();
        return "the good request after the case got no answer";
      }
      if (answer.code !== 0) return `the good request after the case failed: code ${answer.code}: ${answer.details.slice(0, 300)}`;
      await Promise.all([stderrLine.seen, p.until(() => p.stdout.indexOf(line, outFrom) >= 0, `the marker ${marker}`, this.bound)]);
      return undefined;
    } catch {
      return "the good request's output never arrived";
    } finally {
      stderrLine.stop();
    }
  }

  /** Resolves `seen` once `text` arrives on the plugin's stderr from now on (rejects after the bound); `stop` detaches. */
  private watchStderr(text: string): { seen: Promise<void>; stop: () => void } {
    const stream = this.plugin!.child.stderr!;
    let tail = "";
    let onData: (d: string) => void = () => undefined;
    let timer: NodeJS.Timeout | undefined;
    const stop = () => {
      stream.off("data", onData);
      clearTimeout(timer);
    };
    const seen = new Promise<void>((resolve, reject) => {
      onData = (d: string) => {
        // A line may arrive split across chunks: keep the end of the last one.
        const s = tail + d;
        if (s.includes(text)) {
          stop();
          resolve();
        } else tail = s.slice(-text.length);
      };
      stream.on("data", onData);
      timer = setTimeout(() => {
        stop();
        reject(new Error(`no ${JSON.stringify(text)} on stderr`));
      }, this.bound);
    });
    seen.catch(() => undefined);
    return { seen, stop };
  }
}
