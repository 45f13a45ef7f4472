// The benchmark's calibration plugin: a bare grpc-js ResourceProvider that
// loads no provider and answers Create (after `sleepMs`, if the request asks,
// as an IO-bound provider would) with the request's own properties. It shows
// the ceiling this client and machine allow; nothing real can be faster. It
// runs with the host's own process settings (server options, young- and
// old-generation sizing, interrupt budget), so none of what ours gains from them counts as
// getting closer to the ceiling.
import * as grpc from "@grpc/grpc-js";
import { limitOldGenerationGrowth } from "../src/host/tuning/old-generation.js";
import { serviceDefinition, SERVER_OPTIONS } from "../src/host/server.js";
import { requestServed } from "../src/host/tuning/served-requests.js";
import { tierUpUnderLoad } from "../src/host/tuning/tier-up.js";
import type { WireStruct } from "../src/host/wire/wire.js";
import { capYoungGeneration } from "../src/host/tuning/young-generation.js";

capYoungGeneration();
limitOldGenerationGrowth();

const server = new grpc.Server(SERVER_OPTIONS);
const echo = (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
  const props = call.request.properties as WireStruct | undefined;
  const sleep = props?.fields?.seconds?.numberValue ?? 0;
  const answer = () => callback(null, { id: "ceiling", properties: props });
  if (sleep > 0) setTimeout(answer, sleep * 1000);
  else answer();
};
const ok = (_call: unknown, callback: grpc.sendUnaryData<any>) => callback(null, {});
// Each answer counts toward the interrupt budget's lowering, as the host's answers do (src/host/grpc-adapter.ts).
type Handler = (call: any, callback: grpc.sendUnaryData<any>) => void;
const counted = (h: Handler): Handler => (call, callback) => h(call, (err, value) => {
  requestServed();
  callback(err, value);
});
const handlers: Record<string, Handler> = {
  Create: echo,
  Check: (call: grpc.ServerUnaryCall<any, any>, cb: grpc.sendUnaryData<any>) => cb(null, { inputs: call.request.news, failures: [] }),
  Diff: (_c: unknown, cb: grpc.sendUnaryData<any>) => cb(null, { changes: 0 }),
  Update: (call: grpc.ServerUnaryCall<any, any>, cb: grpc.sendUnaryData<any>) => cb(null, { properties: call.request.news }),
  Delete: ok,
  Configure: ok,
  Cancel: ok,
  GetPluginInfo: (_c: unknown, cb: grpc.sendUnaryData<any>) => cb(null, { version: "0.0.0" }),
};
server.addService(serviceDefinition(), Object.fromEntries(Object.entries(handlers).map(([k, h]) => [k, counted(h)])));
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  process.stdout.write(`${port}\n`);
  tierUpUnderLoad();
});
