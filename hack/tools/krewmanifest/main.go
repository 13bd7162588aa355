// Command krewmanifest renders the krew plugin manifest template (.krew.yaml)
// for a release: the tag, and each archive's sha256 from goreleaser's
// checksums.txt. The result is decoded strictly with krew's own types
// (sigs.k8s.io/krew/pkg/index); krew's structural validation is its
// validate-krew-manifest program, a tool of this module too, which
// hack/release-check.sh runs on the output.
//
//	go run ./krewmanifest -template ../../.krew.yaml -checksums ../../dist/checksums.txt -tag v1.2.3 -o ingress.yaml
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "krewmanifest:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("krewmanifest", flag.ContinueOnError)
	tmplPath := fs.String("template", ".krew.yaml", "the manifest template")
	sumsPath := fs.String("checksums", "dist/checksums.txt", "goreleaser's checksums.txt")
	tag := fs.String("tag", "", "the release tag, e.g. v1.2.3")
	out := fs.String("o", "", "where to write the manifest; its file name must be <plugin name>.yaml, as krew-index wants")
	allowMissing := fs.Bool("allow-missing", false, "leave out the platforms whose archive has no checksum (a snapshot of one platform) instead of failing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tag == "" || *out == "" {
		return fmt.Errorf("-tag and -o are required")
	}
	tmpl, err := os.ReadFile(*tmplPath)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(*sumsPath)
	if err != nil {
		return err
	}
	sums, err := ParseChecksums(*sumsPath, data)
	if err != nil {
		return err
	}
	r, err := Render(*tmplPath, tmpl, *tag, sums, *allowMissing)
	if err != nil {
		return err
	}
	if want := r.Plugin.Name + ".yaml"; filepath.Base(*out) != want {
		return fmt.Errorf("-o %s: krew wants the file named %s", *out, want)
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(*out, r.Manifest, 0o644); err != nil {
		return err
	}
	fmt.Printf("krewmanifest: wrote %s: %s %s, %d platform(s)", *out, r.Plugin.Name, r.Plugin.Spec.Version, len(r.Plugin.Spec.Platforms))
	if len(r.Missing) > 0 {
		fmt.Printf("; left out (not built): %s", strings.Join(r.Missing, ", "))
	}
	fmt.Println()
	return nil
}
