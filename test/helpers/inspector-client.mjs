// A debugger client for test/e2e/debug-attach.test.ts: speaks the Chrome
// DevTools protocol to a Node inspector over its WebSocket, as VS Code does.
// Node 20 has WebSocket only behind --experimental-websocket, so the test runs
// this script in a node of its own with that flag.
//
// usage: node --experimental-websocket inspector-client.mjs <ws url> <url regex> <line (0-based)> <expression>
// Prints one JSON object a line: {"ready": …} once the breakpoint is set, then
// {"paused": {url, line, functionName, reason, value}} when it is hit (the
// expression evaluated in the paused frame); it then resumes and exits.
const [url, urlRegex, line, expression] = process.argv.slice(2);
const ws = new WebSocket(url);
let nextId = 1;
const waiting = new Map();

function send(method, params = {}) {
  const id = nextId++;
  ws.send(JSON.stringify({ id, method, params }));
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject, method }));
}

const say = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);

const scripts = new Map();
ws.addEventListener("message", async (event) => {
  const msg = JSON.parse(event.data);
  if (msg.id !== undefined) {
    const w = waiting.get(msg.id);
    waiting.delete(msg.id);
    if (msg.error) w.reject(new Error(`${w.method}: ${msg.error.message}`));
    else w.resolve(msg.result);
    return;
  }
  if (msg.method === "Debugger.scriptParsed") scripts.set(msg.params.scriptId, msg.params.url);
  if (msg.method === "Debugger.paused") {
    const frame = msg.params.callFrames[0];
    const evaluated = await send("Debugger.evaluateOnCallFrame", { callFrameId: frame.callFrameId, expression, returnByValue: true });
    say({
      paused: {
        url: scripts.get(frame.location.scriptId) ?? frame.url,
        line: frame.location.lineNumber,
        functionName: frame.functionName,
        reason: msg.params.reason,
        hitBreakpoints: msg.params.hitBreakpoints ?? [],
        value: evaluated.result.value,
      },
    });
    await send("Debugger.resume");
    ws.close();
  }
});
ws.addEventListener("close", () => process.exit(0));
ws.addEventListener("error", (e) => {
  process.stderr.write(`inspector client: ${e.message ?? e}\n`);
  process.exit(1);
});
ws.addEventListener("open", async () => {
  await send("Debugger.enable");
  const bp = await send("Debugger.setBreakpointByUrl", { urlRegex, lineNumber: Number(line), columnNumber: 0 });
  say({ ready: bp.breakpointId });
});
