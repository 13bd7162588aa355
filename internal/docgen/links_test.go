package docgen

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// markdownLink matches [text](target) with a relative target.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// heading matches a Markdown heading.
var heading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)

// anchor is GitHub's anchor of a heading: lower case, spaces to dashes,
// punctuation other than dashes and underscores dropped.
func anchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// The README's first lines are the two commands a newcomer runs.
func TestREADMEStartsWithTheTwoCommands(t *testing.T) {
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(data), "\n", 7)
	if len(lines) < 6 || lines[2] != "```sh" || !strings.HasPrefix(lines[3], "make simulator ") ||
		!strings.HasPrefix(lines[4], "make test ") || lines[5] != "```" {
		t.Errorf("README.md does not open with the `make simulator` and `make test` block:\n%s", strings.Join(lines[:min(len(lines), 6)], "\n"))
	}
}

// Every relative link of the README and docs/ names a file of the
// repository, and an anchor one of its headings.
func TestDocLinks(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(moduleRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, readme)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range markdownLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			full := f
			if path != "" {
				full = filepath.Join(filepath.Dir(f), path)
			}
			fi, err := os.Stat(full)
			if err != nil {
				t.Errorf("%s links to %s, which does not exist", f, target)
				continue
			}
			if frag == "" || fi.IsDir() {
				continue
			}
			body, err := os.ReadFile(full)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, h := range heading.FindAllStringSubmatch(string(body), -1) {
				if anchor(h[1]) == frag {
					found = true
				}
			}
			if !found {
				t.Errorf("%s links to %s: %s has no heading with the anchor #%s", f, target, path, frag)
			}
		}
	}
}

func TestAnchor(t *testing.T) {
	for h, want := range map[string]string{
		"Not supported":                        "not-supported",
		"`kubectl ingress render`":             "kubectl-ingress-render",
		"Compatibility with ingress-nginx":     "compatibility-with-ingress-nginx",
		"1. Check your objects first, offline": "1-check-your-objects-first-offline",
	} {
		if got := anchor(h); got != want {
			t.Errorf("anchor(%q) = %q, want %q", h, got, want)
		}
	}
}
