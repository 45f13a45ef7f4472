module pulumi-dynamic-host/test/e2e/yaml-host

go 1.25.11

// Pulumi YAML's language host, built from the Go module proxy by
// `scripts/go-program.sh yaml-host github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml` for the end-to-end test of YAML programs using declared
// types (test/e2e/yaml-declared.test.ts) and of provider packages (test/e2e/provider-packages.test.ts).
// 1.27.0 or later: `pulumi package add` links the package it generated into the project through the
// language host's Link, which earlier versions do not implement ("method Link not implemented").
require github.com/pulumi/pulumi-yaml v1.38.1
