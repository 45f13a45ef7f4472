// The fuzz suite against our pulumi-resource-pulumi-nodejs (test/fuzz/suite.ts says what each case asserts):
// part of `npm test` at 320 cases; `npm run fuzz` runs 2000 (PULUMI_DYNAMIC_HOST_FUZZ_CASES; docs/reliability.md).
import { fuzzSuite } from "./suite.js";

fuzzSuite("nodejs");
