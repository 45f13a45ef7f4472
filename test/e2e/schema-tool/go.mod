module pulumi-dynamic-host/test/e2e/schema-tool

go 1.26.6

require github.com/pulumi/pulumi/pkg/v3 v3.259.0
