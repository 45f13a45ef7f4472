// The fuzz suite against our pulumi-resource-pulumi-nodejs (test/fuzz/suite.ts says what each case asserts).
import { fuzzSuite } from "./suite.js";

fuzzSuite("nodejs");
