// Command genmanifests writes a deterministic, realistic cluster for an
// nginx ingress controller (IngressClass, ConfigMap, TLS Secrets,
// Services, EndpointSlices and Ingresses), one YAML file per kind:
//
//	go run ./hack/genmanifests --ingresses 1000 --out DIR
//	go run ./hack/genmanifests --ingresses 1000 --out DIR --change endpoints
//
// --change writes the same cluster with one kind of change applied, so
// that a renderer or a diff can be measured on a pair:
//
//	endpoints   every 10th EndpointSlice gains one endpoint and loses another
//	path        one Ingress gains a new path
//	annotation  one Ingress changes proxy-body-size
//	cert        one TLS Secret gets a new certificate
//	none        byte-identical objects
//
// Every document is JSON (flow-style YAML) behind a "---" line, which any
// YAML parser and kubectl read. The generator is internal/genmanifests,
// which tests and benchmarks call in-process.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kubectl-ingress/kubectl-ingress/internal/genmanifests"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "genmanifests:", err)
		os.Exit(2)
	}
}

func run(args []string, stderr io.Writer) error {
	o := genmanifests.DefaultOptions()
	fs := flag.NewFlagSet("genmanifests", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.Ingresses, "ingresses", o.Ingresses, "number of Ingresses (each with its Service and EndpointSlice)")
	fs.IntVar(&o.Namespaces, "namespaces", o.Namespaces, "number of namespaces the Ingresses are spread over")
	fs.IntVar(&o.Endpoints, "endpoints", o.Endpoints, "endpoints per Service")
	fs.Int64Var(&o.Seed, "seed", o.Seed, "seed of the pseudo-random choices")
	change := fs.String("change", string(o.Change), "the change to apply: none, endpoints, path, annotation or cert")
	out := fs.String("out", "", "folder to write one YAML file per kind into (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *out == "" {
		return fmt.Errorf("--out is required")
	}
	o.Change = genmanifests.Change(*change)
	return genmanifests.Write(*out, o)
}
