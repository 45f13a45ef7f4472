// The fuzz suite against our pulumi-resource-pulumi-python (test/fuzz/suite.ts says what each case asserts).
import { fuzzSuite } from "./suite.js";

fuzzSuite("python");
