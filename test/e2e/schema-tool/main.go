// schema-tool: Pulumi's own schema binder and SDK code generators, from the Go
// module proxy, driven on a schema file; the end-to-end tests of the package
// schema (test/e2e/yaml-declared.test.ts, test/e2e/go-declared.test.ts) use
// it to prove that what pulumi-dynamic-host's GetSchema answers binds, and
// that `pulumi package gen-sdk` would make working SDKs of it. That command
// drives the same generators through the language hosts' GeneratePackage,
// and those hosts are not served by the module proxy here.
//
//	schema-tool bind <schema.json>             binds and validates; prints each diagnostic, exit 1 on an error
//	schema-tool gen <go|nodejs|python> <schema.json> <out-dir>
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// noPackages: a declared package references no other package.
type noPackages struct{}

func (noPackages) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("package %s is not available: the schema must stand alone", pkg)
}

func (noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, fmt.Errorf("package %s is not available: the schema must stand alone", d.Name)
}

func (noPackages) LoadPackageReference(pkg string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, fmt.Errorf("package %s is not available: the schema must stand alone", pkg)
}

func (noPackages) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return nil, fmt.Errorf("package %s is not available: the schema must stand alone", d.Name)
}

func bind(file string) (*schema.Package, bool) {
	bytes, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(bytes, &spec); err != nil {
		fmt.Fprintf(os.Stderr, "%s is not a package schema: %v\n", file, err)
		os.Exit(1)
	}
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "bind: %v\n", err)
		os.Exit(1)
	}
	for _, d := range diags {
		fmt.Println(d.Error())
	}
	return pkg, !diags.HasErrors()
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: schema-tool bind <schema.json> | schema-tool gen <go|nodejs|python> <schema.json> <out-dir>")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "bind":
		if _, ok := bind(os.Args[2]); !ok {
			os.Exit(1)
		}
		fmt.Println("bound without errors")
	case "gen":
		if len(os.Args) != 5 {
			fmt.Fprintln(os.Stderr, "usage: schema-tool gen <go|nodejs|python> <schema.json> <out-dir>")
			os.Exit(2)
		}
		pkg, ok := bind(os.Args[3])
		if !ok {
			os.Exit(1)
		}
		var files map[string][]byte
		var err error
		switch os.Args[2] {
		case "go":
			files, err = gogen.GeneratePackage("pulumi-dynamic-host", pkg, nil)
		case "nodejs":
			files, err = nodejs.GeneratePackage("pulumi-dynamic-host", pkg, nil, nil, true, noPackages{})
		case "python":
			files, err = python.GeneratePackage("pulumi-dynamic-host", pkg, nil, noPackages{})
		default:
			fmt.Fprintf(os.Stderr, "no generator for %q here: go, nodejs or python\n", os.Args[2])
			os.Exit(2)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "gen %s: %v\n", os.Args[2], err)
			os.Exit(1)
		}
		for name, content := range files {
			path := filepath.Join(os.Args[4], name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		fmt.Printf("wrote %d files\n", len(files))
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
}
