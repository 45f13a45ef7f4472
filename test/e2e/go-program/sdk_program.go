//go:build generatedsdk

// The same program written with the SDKs that Pulumi's Go generator makes from
// the schemas our plugins answer (test/e2e/go-declared.test.ts): typed
// arguments and outputs instead of a property map and structs of our own.
// Built only with the tag generatedsdk, by scripts/go-program.sh with
// GO_PROGRAM_SDKS naming where the generated packages are.
package main

import (
	files "example.com/pulumi-pulumi-nodejs/sdk/go/pulumi-nodejs/dynamic/files"
	counters "example.com/pulumi-pulumi-python/sdk/go/pulumi-python/dynamic"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func init() { programFor = sdkProgram }

func sdkProgram(in inputs) pulumi.RunFunc {
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
