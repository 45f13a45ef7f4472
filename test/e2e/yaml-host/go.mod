module pulumi-dynamic-host/test/e2e/yaml-host

go 1.24.7

// Pulumi YAML's language host, built from the Go module proxy by
// `scripts/go-program.sh yaml-host github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml` for the end-to-end test of YAML programs using declared
// types (test/e2e/yaml-declared.test.ts).
require github.com/pulumi/pulumi-yaml v1.25.0
