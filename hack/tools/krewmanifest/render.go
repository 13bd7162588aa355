package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"sigs.k8s.io/krew/pkg/index"
	"sigs.k8s.io/yaml"
)

// Checksums maps an archive's file name to its sha256 (lower-case hex), as
// in goreleaser's checksums.txt.
type Checksums map[string]string

var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// ParseChecksums reads the lines "<sha256>  <file>" of a checksums.txt.
func ParseChecksums(name string, data []byte) (Checksums, error) {
	sums := Checksums{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 || !sha256RE.MatchString(f[0]) {
			return nil, fmt.Errorf("%s:%d: want \"<sha256>  <file>\", got %q", name, n, sc.Text())
		}
		sums[strings.TrimPrefix(f[1], "*")] = f[0]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return sums, nil
}

// Rendered is a rendered manifest and what was left out.
type Rendered struct {
	Manifest []byte       // YAML, as written for the krew index
	Plugin   index.Plugin // the same, decoded with krew's types
	Missing  []string     // archives without a checksum (their platforms are left out)
}

// Render executes the template for a tag with the archives' checksums and
// decodes the result strictly into krew's types (an unknown or misspelt
// field is an error). With allowMissing, a platform whose archive has no
// checksum is left out (a snapshot builds one platform); without it, that
// is an error naming the archive.
func Render(name string, tmpl []byte, tag string, sums Checksums, allowMissing bool) (*Rendered, error) {
	r := &Rendered{}
	t, err := template.New(name).Option("missingkey=error").Funcs(template.FuncMap{
		"sha256": func(archive string) (string, error) {
			if s, ok := sums[archive]; ok {
				return s, nil
			}
			if !allowMissing {
				return "", fmt.Errorf("no checksum for %s", archive)
			}
			r.Missing = append(r.Missing, archive)
			return "", nil
		},
	}).Parse(string(tmpl))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out bytes.Buffer
	if err := t.Execute(&out, map[string]string{"Tag": tag}); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := yaml.UnmarshalStrict(out.Bytes(), &r.Plugin); err != nil {
		return nil, fmt.Errorf("%s: rendered manifest does not match krew's types: %w", name, err)
	}
	if r.Plugin.Kind != "Plugin" || r.Plugin.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" {
		return nil, fmt.Errorf("%s: want apiVersion krew.googlecontainertools.github.com/v1alpha2, kind Plugin; got %s, %s", name, r.Plugin.APIVersion, r.Plugin.Kind)
	}
	r.Manifest = out.Bytes()
	if len(r.Missing) == 0 {
		return r, nil
	}
	r.Plugin.Spec.Platforms = slices.DeleteFunc(r.Plugin.Spec.Platforms, func(p index.Platform) bool { return p.Sha256 == "" })
	if len(r.Plugin.Spec.Platforms) == 0 {
		return nil, fmt.Errorf("%s: no archive of any platform has a checksum", name)
	}
	if r.Manifest, err = marshal(r.Plugin); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}

// marshal writes a Plugin as YAML without the empty ObjectMeta fields
// (creationTimestamp: null) that its Go type would add.
func marshal(p index.Plugin) ([]byte, error) {
	j, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	meta, ok := m["metadata"].(map[string]any)
	if !ok {
		return nil, errors.New("no metadata")
	}
	delete(meta, "creationTimestamp")
	return yaml.Marshal(m)
}
