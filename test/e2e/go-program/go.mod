module pulumi-dynamic-host/test/e2e/go-program

go 1.26.6

require github.com/pulumi/pulumi/sdk/v3 v3.270.0

// sdk/v3 v3.270.0 names pulumi-cloud-sdk/go v1.20260918.0, whose zip the Go
// module proxy refuses (403 "This module version is not available"); the
// next version it serves is required instead.
require github.com/pulumi/pulumi-cloud-sdk/go v1.20261027.1310 // indirect
