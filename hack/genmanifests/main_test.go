package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/internal/genmanifests"
)

func TestRunWritesTheCluster(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	if err := run([]string{"--ingresses", "7", "--change", "path", "--out", dir}, &stderr); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	files, err := genmanifests.Generate(genmanifests.Options{Ingresses: 7, Namespaces: 10, Endpoints: 3, Seed: 1, Change: genmanifests.ChangePath})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.Data) {
			t.Errorf("%s differs from Generate's", f.Name)
		}
	}
}

func TestRunRefusesBadArguments(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--ingresses", "3"},                  // no --out
		{"--out", dir, "--change", "all"},     // unknown change
		{"--out", dir, "--namespaces", "0"},   // no namespace
		{"--out", dir, "extra"},               // an argument
		{"--out", dir, "--ingresses", "many"}, // not a number
	} {
		if err := run(args, &bytes.Buffer{}); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
