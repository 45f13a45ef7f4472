// The end-to-end Go program: an Automation API driver whose inline program
// registers two declared dynamic types by token alone (no provider object, no
// __provider input), so the engine starts our plugins and the host serves each
// type from the declaration in the work dir's Pulumi.yaml. The real CLI
// (settings.root/bin/pulumi) runs it with `--client`: this process is the
// language host, so no Go language host is needed.
//
// usage: go-program '<settings JSON>'
// settings: {"root": <dir holding bin/pulumi>, "workDir": <dir with Pulumi.yaml>,
//
//	"project": <project name>, "stack": <stack name>, "home": <PULUMI_HOME>,
//	"env": {<environment of every CLI run: backend, passphrase, …>},
//	"operations": [{"name", "op": "up"|"preview"|"refresh"|"destroy",
//	                "expectNoChanges": bool, "inputs": {"path", "content", "start"}}]}
//
// The work dir's Pulumi.yaml is the caller's and is never rewritten (no
// auto.Project option): the Automation API reads it as it is. (Go's
// workspace.Project would keep the pulumi-dynamic-host section, in its
// AdditionalKeys, but rewriting drops comments and key order.)
//
// Prints ONE JSON document on stdout: {"steps": [{"name", "summary", "outputs",
// "error", "events"}...]}, or {"driverError": …}; stops at the first failing
// step. Everything else (the CLI's progress) goes to stderr.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/events"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// The two types the test project declares (test/e2e/declared-project).
const (
	textFileType = "pulumi-nodejs:dynamic/files:TextFile"
	counterType  = "pulumi-python:dynamic:Counter"
)

type inputs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	Start   int    `json:"start"`
}

type operation struct {
	Name            string `json:"name"`
	Op              string `json:"op"`
	ExpectNoChanges bool   `json:"expectNoChanges"`
	Inputs          inputs `json:"inputs"`
}

type settings struct {
	Root       string            `json:"root"`
	WorkDir    string            `json:"workDir"`
	Project    string            `json:"project"`
	Stack      string            `json:"stack"`
	Home       string            `json:"home"`
	Env        map[string]string `json:"env"`
	Operations []operation       `json:"operations"`
}

type step struct {
	Name    string              `json:"name"`
	Summary *auto.UpdateSummary `json:"summary,omitempty"`
	Outputs map[string]any      `json:"outputs,omitempty"`
	Error   string              `json:"error,omitempty"`
	Events  []any               `json:"events"`
}

// TextFile and Counter are the outputs the program reads back; the fields'
// tags are the providers' output names (text-file.js, counters.py).
type TextFile struct {
	pulumi.CustomResourceState
	Size  pulumi.IntOutput `pulumi:"size"`
	RanBy pulumi.MapOutput `pulumi:"ranBy"`
}

type Counter struct {
	pulumi.CustomResourceState
	Value pulumi.IntOutput `pulumi:"value"`
	RanBy pulumi.MapOutput `pulumi:"ranBy"`
}

// programFor is the inline program of a step: program, or, built with the tag
// generatedsdk, the one using SDKs generated from the plugins' schemas (sdk_program.go).
var programFor = program

// program registers one of each type with the step's inputs and exports their outputs.
func program(in inputs) pulumi.RunFunc {
	return func(ctx *pulumi.Context) error {
		var file TextFile
		if err := ctx.RegisterResource(textFileType, "notes", pulumi.Map{
			"path":    pulumi.String(in.Path),
			"content": pulumi.String(in.Content),
		}, &file); err != nil {
			return err
		}
		var counter Counter
		if err := ctx.RegisterResource(counterType, "visits", pulumi.Map{
			"start": pulumi.Int(in.Start),
		}, &counter); err != nil {
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

// run performs one operation with its own inline program, collecting the engine's events.
func run(ctx context.Context, s settings, op operation) step {
	out := step{Name: op.Name, Events: []any{}}
	cli, err := auto.NewPulumiCommand(&auto.PulumiCommandOptions{Root: s.Root, SkipVersionCheck: true})
	if err != nil {
		out.Error = err.Error()
		return out
	}
	stack, err := auto.UpsertStackInlineSource(ctx, s.Stack, s.Project, programFor(op.Inputs),
		auto.WorkDir(s.WorkDir), auto.PulumiHome(s.Home), auto.EnvVars(s.Env), auto.Pulumi(cli))
	if err != nil {
		out.Error = err.Error()
		return out
	}
	ch := make(chan events.EngineEvent)
	collected := make(chan struct{})
	go func() {
		// The Automation API closes the channel once the CLI's event log ends.
		for e := range ch {
			if e.Error != nil {
				out.Events = append(out.Events, map[string]string{"streamError": e.Error.Error()})
			} else {
				out.Events = append(out.Events, e.EngineEvent)
			}
		}
		close(collected)
	}()
	var summary auto.UpdateSummary
	switch op.Op {
	case "up":
		opts := []optup.Option{optup.EventStreams(ch), optup.ErrorProgressStreams(os.Stderr), optup.ProgressStreams(os.Stderr)}
		if op.ExpectNoChanges {
			opts = append(opts, optup.ExpectNoChanges())
		}
		var res auto.UpResult
		res, err = stack.Up(ctx, opts...)
		summary = res.Summary
		if err == nil {
			out.Outputs = map[string]any{}
			for k, v := range res.Outputs {
				out.Outputs[k] = v.Value
			}
		}
	case "preview":
		opts := []optpreview.Option{optpreview.EventStreams(ch), optpreview.ProgressStreams(os.Stderr)}
		if op.ExpectNoChanges {
			opts = append(opts, optpreview.ExpectNoChanges())
		}
		_, err = stack.Preview(ctx, opts...)
	case "refresh":
		opts := []optrefresh.Option{optrefresh.EventStreams(ch), optrefresh.ProgressStreams(os.Stderr)}
		if op.ExpectNoChanges {
			opts = append(opts, optrefresh.ExpectNoChanges())
		}
		var res auto.RefreshResult
		res, err = stack.Refresh(ctx, opts...)
		summary = res.Summary
	case "destroy":
		var res auto.DestroyResult
		res, err = stack.Destroy(ctx, optdestroy.EventStreams(ch), optdestroy.ProgressStreams(os.Stderr))
		summary = res.Summary
	default:
		err = fmt.Errorf("unknown operation %q", op.Op)
	}
	// An operation that got as far as the CLI has closed ch (and sends no more:
	// it waited for its log to end); one that failed before has not.
	closeIfOpen(ch)
	<-collected
	if summary.Kind != "" {
		out.Summary = &summary
	}
	if err != nil {
		out.Error = err.Error()
	}
	return out
}

// closeIfOpen closes ch unless it is closed already.
func closeIfOpen(ch chan events.EngineEvent) {
	defer func() { _ = recover() }()
	close(ch)
}

func main() {
	result := map[string]any{}
	defer func() {
		if err := json.NewEncoder(os.Stdout).Encode(result); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}()
	if len(os.Args) != 2 {
		result["driverError"] = "usage: go-program '<settings JSON>'"
		return
	}
	var s settings
	if err := json.Unmarshal([]byte(os.Args[1]), &s); err != nil {
		result["driverError"] = "settings: " + err.Error()
		return
	}
	steps := []step{}
	for _, op := range s.Operations {
		st := run(context.Background(), s, op)
		steps = append(steps, st)
		if st.Error != "" {
			break
		}
	}
	result["steps"] = steps
}
