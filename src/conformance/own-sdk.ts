// The kit's own copy of the SDK's generated stubs, for a project that has no
// @pulumi/pulumi from npm (a Python project: its SDK is `pulumi` from PyPI). It
// is Pulumi's npm package's generated code (@pulumi/pulumi/proto/*_pb.js, with the
// grpc-js and google-protobuf they require), bundled into the command's bundle
// (scripts/bundle.mjs, scripts/dist.mjs), so the client still speaks the
// engine's contract as the SDK states it, not our .proto. Imported lazily
// (client.ts, loadOwnSdk) and only when the project has no SDK of its own:
// two copies of the stubs in one process would share google-protobuf's global
// `proto` namespace.
import grpc from "@grpc/grpc-js";
import emptyPb from "google-protobuf/google/protobuf/empty_pb.js";
import structPb from "google-protobuf/google/protobuf/struct_pb.js";
import engineGrpc from "@pulumi/pulumi/proto/engine_grpc_pb.js";
import plugin from "@pulumi/pulumi/proto/plugin_pb.js";
import provider from "@pulumi/pulumi/proto/provider_pb.js";
import services from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import statusPb from "@pulumi/pulumi/proto/status_pb.js";

export const ownStubs = { services, provider, plugin, statusPb, engineGrpc, structPb, emptyPb, grpc };
