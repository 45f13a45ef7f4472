// A Debug Adapter Protocol client over TCP, as VS Code speaks to debugpy:
// Content-Length framed JSON, requests answered by seq, events in between.
// Enough for test/e2e/debug-attach.test.ts: attach, set breakpoints, wait for
// a stop, read the stack, evaluate, continue.
import net from "node:net";

export interface DapMessage {
  seq: number;
  type: "request" | "response" | "event";
  command?: string;
  event?: string;
  success?: boolean;
  message?: string;
  body?: any;
  request_seq?: number;
}

export class DapClient {
  private seq = 1;
  private buffer = Buffer.alloc(0);
  private readonly pending = new Map<number, (m: DapMessage) => void>();
  private readonly events: DapMessage[] = [];
  private readonly eventWaiters: { name: string; resolve: (m: DapMessage) => void }[] = [];

  private constructor(private readonly socket: net.Socket) {
    socket.on("data", (d) => this.receive(d));
  }

  static connect(host: string, port: number): Promise<DapClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, host, () => resolve(new DapClient(socket)));
      socket.once("error", reject);
    });
  }

  /** Sends a request; resolves with its response (a failed one rejects, with the adapter's message). */
  request(command: string, args: Record<string, unknown> = {}): Promise<DapMessage> {
    const seq = this.seq++;
    const json = Buffer.from(JSON.stringify({ seq, type: "request", command, arguments: args }), "utf8");
    this.socket.write(Buffer.concat([Buffer.from(`Content-Length: ${json.length}\r\n\r\n`, "ascii"), json]));
    return new Promise((resolve, reject) =>
      this.pending.set(seq, (m) => (m.success ? resolve(m) : reject(new Error(`${command}: ${m.message ?? "failed"}`)))),
    );
  }

  /** The first event named `name` (one already received counts), removed from the record. */
  event(name: string): Promise<DapMessage> {
    const i = this.events.findIndex((e) => e.event === name);
    if (i >= 0) return Promise.resolve(this.events.splice(i, 1)[0]);
    return new Promise((resolve) => this.eventWaiters.push({ name, resolve }));
  }

  close(): void {
    this.socket.destroy();
  }

  private receive(data: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, data]);
    for (;;) {
      const end = this.buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, end).toString("ascii"))?.[1]);
      if (this.buffer.length < end + 4 + length) return;
      const message = JSON.parse(this.buffer.subarray(end + 4, end + 4 + length).toString("utf8")) as DapMessage;
      this.buffer = this.buffer.subarray(end + 4 + length);
      if (message.type === "response") {
        const done = this.pending.get(message.request_seq!);
        this.pending.delete(message.request_seq!);
        done?.(message);
      } else if (message.type === "event") {
        const i = this.eventWaiters.findIndex((w) => w.name === message.event);
        if (i >= 0) this.eventWaiters.splice(i, 1)[0].resolve(message);
        else this.events.push(message);
      }
    }
  }
}
