import { expect } from "chai";
import { parsePluginArgs } from "../../src/host/plugin/args.js";
import { modeForBinary, modeOfProcess, NODEJS, PYTHON } from "../../src/host/plugin/modes.js";

describe("args: the engine's plugin command line", function () {
  const table: [string[], { engineAddress?: string; verbosity: number }][] = [
    [["127.0.0.1:5"], { engineAddress: "127.0.0.1:5", verbosity: -1 }],
    [["--logtostderr", "-v=9", "--tracing", "http://t", "127.0.0.1:5"], { engineAddress: "127.0.0.1:5", verbosity: 9 }],
    [["--logtostderr", "127.0.0.1:5"], { engineAddress: "127.0.0.1:5", verbosity: 0 }],
    [["-v=3", "127.0.0.1:5"], { engineAddress: "127.0.0.1:5", verbosity: 3 }],
    [["--tracing=http://t", "127.0.0.1:5"], { engineAddress: "127.0.0.1:5", verbosity: -1 }],
    [["--some-future-flag", "a:1"], { engineAddress: "a:1", verbosity: -1 }],
    [[], { engineAddress: undefined, verbosity: -1 }],
    [["--logtostderr", "-v=9"], { engineAddress: undefined, verbosity: 9 }],
    [["--tracing", "127.0.0.1:9"], { engineAddress: undefined, verbosity: -1 }],
  ];
  for (const [argv, expected] of table) {
    it(JSON.stringify(argv), function () {
      const parsed = parsePluginArgs(argv);
      expect({ engineAddress: parsed.engineAddress, verbosity: parsed.verbosity }).to.deep.equal(expected);
    });
  }
});

describe("modes: the invoked name picks the language", function () {
  it("maps both plugin names and nothing else", function () {
    expect(modeForBinary("pulumi-resource-pulumi-nodejs")).to.equal(NODEJS);
    expect(modeForBinary("pulumi-resource-pulumi-python")).to.equal(PYTHON);
    expect(modeForBinary("pulumi-resource-pulumi-python.cmd")).to.equal(PYTHON);
    expect(modeForBinary("pulumi-dynamic-host")).to.equal(undefined);
    expect(modeForBinary("pulumi-resource-pulumi-nodejs-old")).to.equal(undefined);
  });

  it("a launcher's PULUMI_DYNAMIC_HOST_SERVE decides: a plugin name's mode, pulumi-dynamic-host none (the wheel's command launcher), any other name the invoked one's", function () {
    const exe = "/venv/bin/pulumi-resource-pulumi-nodejs";
    expect(modeOfProcess(exe, undefined)).to.equal(NODEJS);
    expect(modeOfProcess(exe, "/venv/bin/pulumi-resource-pulumi-python")).to.equal(PYTHON);
    expect(modeOfProcess(exe, "/venv/bin/pulumi-dynamic-host")).to.equal(undefined);
    expect(modeOfProcess(exe, "/venv/bin/something-else")).to.equal(NODEJS);
    expect(modeOfProcess("/usr/bin/pulumi-dynamic-host", undefined)).to.equal(undefined);
  });

  it("refusal texts per mode, as each reference", function () {
    expect(NODEJS.unimplemented("Handshake")).to.equal("Handshake is not implemented by the dynamic provider");
    expect(PYTHON.unimplemented("Handshake")).to.equal("Method not implemented!");
    for (const rpc of ["GetSchema", "CheckConfig", "DiffConfig", "List"]) {
      expect(PYTHON.unimplemented(rpc)).to.equal(`${rpc} is not implemented by the dynamic provider`);
    }
    expect(NODEJS.invoke("a:b:c")).to.deep.equal({ code: 2, details: "unknown function a:b:c" });
    expect(PYTHON.invoke("a:b:c")).to.deep.equal({ code: 12, details: "Invoke is not implemented by the dynamic provider" });
  });
});
