// The declared-project fixtures' declarations with their types (docs/schema.md),
// as the suites that need a schema write them into Pulumi.yaml: the YAML
// programs (yaml-declared.test.ts) and the Go program written with generated
// SDKs (go-declared.test.ts). `ranBy` is what the fixtures report of the
// process that ran them.
export const TEXT_FILE = "pulumi-nodejs:dynamic/files:TextFile";
export const COUNTER = "pulumi-python:dynamic:Counter";

export const TYPED_DECLARATIONS = `pulumi-dynamic-host:
  providers:
    ${TEXT_FILE}:
      provider: ./text-file#textFileProvider
      description: A text file on the local disk.
      inputs:
        path: { type: string, description: Where the file is. }
        content: string
      outputs:
        size: integer
        ranBy: { type: any, description: Which process ran the provider. }
    ${COUNTER}:
      provider: counters:CounterProvider
      inputs:
        start: integer
        step: integer?
      outputs:
        value: integer
        ranBy: any
`;
