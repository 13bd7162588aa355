// Package genmanifests generates a deterministic, realistic cluster for an
// nginx ingress controller: an IngressClass, the controller ConfigMap, TLS
// Secrets, Services, EndpointSlices and Ingresses, one YAML file per kind.
// The benchmarks, the bench scripts (through hack/genmanifests) and the
// tests that need a cluster of any size use it, so that the repository
// needs nothing outside itself.
//
// The output is byte for byte what the project's earlier Python generator
// (genmanifests.py) wrote for the same options: the same pseudo-random
// sequence (CPython's Mersenne Twister, pyrandom.go), the same JSON layout
// (json.dumps with indent=1 behind "---" lines, pyjson.go) and the same
// fixed certificates (certs/), so that figures measured with either stay
// comparable.
//
// It imports the standard library only, and no package of the product
// imports it.
package genmanifests

import (
	"embed"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Change is one kind of change applied to the cluster, so that a renderer
// or a diff can be measured on a pair (the cluster with ChangeNone, and
// with the change).
type Change string

// The changes.
const (
	// ChangeNone writes the cluster as it is.
	ChangeNone Change = "none"
	// ChangeEndpoints: every 10th EndpointSlice gains one endpoint and
	// loses another.
	ChangeEndpoints Change = "endpoints"
	// ChangePath: one Ingress gains a new path.
	ChangePath Change = "path"
	// ChangeAnnotation: one Ingress changes proxy-body-size.
	ChangeAnnotation Change = "annotation"
	// ChangeCert: one TLS Secret gets a new certificate.
	ChangeCert Change = "cert"
)

// Changes lists the valid changes, in the order the help names them.
var Changes = []Change{ChangeNone, ChangeEndpoints, ChangePath, ChangeAnnotation, ChangeCert}

// Options say what to generate.
type Options struct {
	// Ingresses is the number of Ingresses, each with its Service and
	// EndpointSlice.
	Ingresses int
	// Namespaces is the number of namespaces (team-00 …) the Ingresses
	// are spread over, round robin; each has a TLS Secret.
	Namespaces int
	// Endpoints is the number of endpoints per EndpointSlice.
	Endpoints int
	// Seed seeds the pseudo-random choices (paths, annotations, TLS).
	Seed int64
	// Change is applied to the cluster; "" is ChangeNone.
	Change Change
}

// DefaultOptions are the defaults of hack/genmanifests.
func DefaultOptions() Options {
	return Options{Ingresses: 100, Namespaces: 10, Endpoints: 3, Seed: 1, Change: ChangeNone}
}

// File is one generated manifest file.
type File struct {
	// Name is the file name: "<kind>.yaml".
	Name string
	Data []byte
}

// kinds are the files, in the order they are written.
var kinds = []string{"ingressclass", "configmap", "secret", "service", "endpointslice", "ingress"}

//go:embed certs
var certs embed.FS

// Validate checks the options.
func (o Options) Validate() error {
	switch {
	case o.Ingresses < 0:
		return fmt.Errorf("--ingresses must not be negative, got %d", o.Ingresses)
	case o.Namespaces < 1:
		return fmt.Errorf("--namespaces must be at least 1, got %d", o.Namespaces)
	case o.Endpoints < 0:
		return fmt.Errorf("--endpoints must not be negative, got %d", o.Endpoints)
	}
	for _, c := range Changes {
		if o.change() == c {
			return nil
		}
	}
	return fmt.Errorf("--change must be one of %s, got %q", changeNames(), o.Change)
}

func (o Options) change() Change {
	if o.Change == "" {
		return ChangeNone
	}
	return o.Change
}

func changeNames() string {
	names := make([]string, len(Changes))
	for i, c := range Changes {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// Generate returns the six files of the cluster, in the order of kinds.
// The same options always give the same bytes.
func Generate(o Options) ([]File, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	docs, err := generate(o)
	if err != nil {
		return nil, err
	}
	files := make([]File, len(kinds))
	for i, kind := range kinds {
		var b strings.Builder
		for _, d := range docs[kind] {
			b.WriteString("---\n")
			b.WriteString(dumps(d))
			b.WriteString("\n")
		}
		files[i] = File{Name: kind + ".yaml", Data: []byte(b.String())}
	}
	return files, nil
}

// Write generates the cluster into dir (made if missing), replacing files
// of the same names.
func Write(dir string, o Options) error {
	files, err := Generate(o)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// certPair returns the base64 of certs/<name>.crt and .key: a fixed
// self-signed pair for example.com and *.example.com.
func certPair(name string) (crt, key string, err error) {
	read := func(ext string) (string, error) {
		b, err := certs.ReadFile("certs/" + name + ext)
		return base64.StdEncoding.EncodeToString(b), err
	}
	if crt, err = read(".crt"); err != nil {
		return "", "", err
	}
	key, err = read(".key")
	return crt, key, err
}

// meta is the metadata object: name, then namespace when set, then extra.
func meta(name, ns string, extra ...field) obj {
	m := obj{{"name", name}}
	if ns != "" {
		m = append(m, field{"namespace", ns})
	}
	return append(m, extra...)
}
