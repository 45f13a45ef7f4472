// A stand-in for the engine's language host (pulumi-language-nodejs,
// pulumi-language-python, pulumi-language-go), for `pulumi import` in the end-to-end tests only.
//
// The real language hosts are not served by the Go module proxy reachable here
// (scripts/engine.sh), and inline Automation API programs bring their own, but
// `pulumi import` runs no program: it starts the project's language host only
// to ask which plugins the project needs (GetRequiredPackages) and its version
// (GetPluginInfo). This answers both with "none" and refuses everything else as
// unimplemented, which the engine accepts (Handshake) or reports. Everything
// else in those tests is the real engine and the dynamic-provider plugin.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const grpc = require("@grpc/grpc-js");

const empty = () => Buffer.alloc(0);
const method = (name) => ({
  path: `/pulumirpc.LanguageRuntime/${name}`,
  requestStream: false,
  responseStream: false,
  requestSerialize: (b) => b,
  requestDeserialize: (b) => b,
  responseSerialize: empty,
  responseDeserialize: (b) => b,
});

const server = new grpc.Server();
server.addService(
  { GetPluginInfo: method("GetPluginInfo"), GetRequiredPackages: method("GetRequiredPackages") },
  {
    // An empty PluginInfo (no version) and an empty GetRequiredPackagesResponse (no packages).
    GetPluginInfo: (_call, done) => done(null, {}),
    GetRequiredPackages: (_call, done) => done(null, {}),
  },
);
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) {
    process.stderr.write(`language stand-in: ${err.message}\n`);
    process.exit(1);
  }
  process.stdout.write(`${port}\n`);
});
process.stdin.on("data", () => undefined);
process.stdin.on("end", () => process.exit(0));
