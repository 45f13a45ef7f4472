// Protobuf wire bytes written by hand: the conformance kit's (src/conformance/wire-bytes.ts),
// with Python calls made by the test virtualenv's interpreter.
import { callFromPython as callFrom } from "../../src/conformance/wire-bytes.js";
import { VENV_PYTHON } from "./paths.js";

export * from "../../src/conformance/wire-bytes.js";

export const callFromPython = (port: number, method: string, body: Buffer) => callFrom(VENV_PYTHON, port, method, body);
