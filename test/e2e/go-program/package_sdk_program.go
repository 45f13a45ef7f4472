//go:build packagesdk

// The program written with the Go SDKs that Pulumi's Go generator makes from
// the schemas of two provider packages (test/e2e/provider-package-sdks.test.ts):
// files (a Node package) and counters (a Python one), each schema answered by
// our plugin parameterized with the package's folder. Their resources register
// the package with the engine (RegisterPackage: our plugin as the base
// provider, the package's parameter) before registering themselves. Built
// only with the tag packagesdk, by scripts/go-program.sh with GO_PROGRAM_SDKS
// naming where the generated packages are and GO_PROGRAM_TAG=packagesdk.
package main

import (
	counters "example.com/pulumi-counters/sdk/go/counters"
	files "example.com/pulumi-files/sdk/go/files"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func init() { programFor = packageSdkProgram }

func packageSdkProgram(in inputs) pulumi.RunFunc {
	return func(ctx *pulumi.Context) error {
		file, err := files.NewTextFile(ctx, "notes", &files.TextFileArgs{
			Path:    pulumi.String(in.Path),
			Content: pulumi.String(in.Content),
		})
		if err != nil {
			return err
		}
		counter, err := counters.NewCounter(ctx, "visits", &counters.CounterArgs{Start: pulumi.Int(in.Start)})
		if err != nil {
			return err
		}
		ctx.Export("fileId", file.ID())
		ctx.Export("fileSize", file.Size)
		ctx.Export("fileRanBy", file.RanBy)
		ctx.Export("counterId", counter.ID())
		ctx.Export("counterValue", counter.Value)
		ctx.Export("counterRanBy", counter.RanBy)
		return nil
	}
}
