package docgen

import (
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

const (
	architectureDoc = "../../docs/architecture.md"
	modulePath      = "github.com/kubectl-ingress/kubectl-ingress/"
	moduleRoot      = "../.."
)

// packageRow matches a row of the package table: | `path` | owns | imports |
var packageRow = regexp.MustCompile("^\\| `([a-z0-9/_-]+)` \\| .* \\| ([^|]*) \\|$")

// docImports reads the package table of docs/architecture.md: package →
// the module's packages it says it imports.
func docImports(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(architectureDoc)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		m := packageRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		list := []string{}
		for _, f := range strings.Split(m[2], ",") {
			if f = strings.Trim(strings.TrimSpace(f), "`"); f != "" && f != "—" {
				list = append(list, f)
			}
		}
		sort.Strings(list)
		rows[m[1]] = list
	}
	return rows
}

// codeImports returns the module's packages that the non-test files of
// the package in dir (relative to the module root) import.
func codeImports(t *testing.T, dir string) []string {
	t.Helper()
	p, err := build.ImportDir(filepath.Join(moduleRoot, dir), 0)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	list := []string{}
	for _, imp := range p.Imports {
		if rel, ok := strings.CutPrefix(imp, modulePath); ok {
			list = append(list, rel)
		}
	}
	sort.Strings(list)
	return list
}

// The package table of docs/architecture.md says what each package
// imports of this module, as the code does, and lists every package of the
// product (cmd, pkg, lua).
func TestArchitecturePackageTable(t *testing.T) {
	rows := docImports(t)
	if len(rows) == 0 {
		t.Fatal("docs/architecture.md has no package table")
	}
	for pkg, want := range rows {
		if got := codeImports(t, pkg); !slices.Equal(got, want) {
			t.Errorf("docs/architecture.md says %s imports %v; the code imports %v", pkg, want, got)
		}
	}
	var product []string
	for _, pattern := range []string{"cmd/*", "pkg/*", "lua"} {
		dirs, err := filepath.Glob(filepath.Join(moduleRoot, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dirs {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				rel, _ := filepath.Rel(moduleRoot, d)
				product = append(product, filepath.ToSlash(rel))
			}
		}
	}
	for _, p := range product {
		if _, ok := rows[p]; !ok {
			t.Errorf("package %s is not in the package table of docs/architecture.md", p)
		}
	}
}
