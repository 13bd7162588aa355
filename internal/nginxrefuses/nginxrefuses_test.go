package nginxrefuses

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

func TestPick(t *testing.T) {
	in := Pick(t)
	ing := in.Ingress("ns", "n", "h.example.com", "svc")
	y := in.YAML("ns", "n", "h.example.com", "svc", "2026-01-01T00:00:00Z")
	for k, v := range ing.Annotations {
		if !strings.Contains(y, k+": ") || !strings.Contains(y, v) {
			t.Errorf("the YAML lacks annotation %s=%s:\n%s", k, v, y)
		}
	}
	if p := ing.Spec.Rules[0].HTTP.Paths[0]; !strings.Contains(y, "pathType: "+string(*p.PathType)) || !strings.Contains(y, p.Path) {
		t.Errorf("the YAML lacks path %s of type %s:\n%s", p.Path, *p.PathType, y)
	}
}

// TestAllRefusedByRender: every input of All is a Problem of render
// naming its annotation or path; none may become a silent nginx -t
// failure again.
func TestAllRefusedByRender(t *testing.T) {
	for _, in := range All {
		_, problems := render.Build(in.Snapshot(), render.DefaultOptions())
		want := ".path"
		for k := range in.Annotations {
			want = "nginx.ingress.kubernetes.io/" + k
		}
		found := false
		for _, p := range problems {
			found = found || strings.Contains(p.Field, want)
		}
		if !found {
			t.Errorf("%s: render's Problems %v, want one on %s", in.Name, problems, want)
		}
	}
}

// TestCulpritOnlyWithSeam: Culprit is a valid Ingress that nginx -t
// accepts without the seam; with it, nginx -t refuses the seam's line.
func TestCulpritOnlyWithSeam(t *testing.T) {
	tester := nginxtest.Tester(t)
	if v := judge(tester, Culprit, nginxconf.DefaultConfOptions()); v.refused != nil || v.err != nil || len(v.problems) > 0 {
		t.Errorf("without the seam: %+v, want Problems none and nginx -t passing", v)
	}
	v := judge(tester, Culprit, Conf())
	if v.refused == nil || !strings.Contains(v.refused.Message, `unknown directive "`+nginxconf.TestRefusalDirective+`"`) {
		t.Fatalf("with the seam: %+v, want nginx -t to refuse the seam's directive", v)
	}
	t.Logf("nginx -t: %s (line %d)", v.refused.Message, v.refused.Line)
}

// TestSeamIsTestOnly: no product code sets the writer's test seam. Only
// the writer reads nginxconf.ConfOptions.TestRefusal, and only cmd's
// RenderFlags copies it from a field of its own that no flag binds
// (set by the command tests).
func TestSeamIsTestOnly(t *testing.T) {
	allowed := map[string]bool{
		"pkg/nginxconf/nginxconf.go":        true, // the field
		"pkg/nginxconf/nginxconf_server.go": true, // the writer reads it
		"cmd/kubectl-ingress/flags.go":      true, // RenderFlags.ConfOptions copies testRefusal
	}
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "internal/nginxrefuses/") {
			return nil // the test helper
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && (id.Name == "TestRefusal" || id.Name == "testRefusal") && !allowed[rel] {
				t.Errorf("%s: %s names the writer's test seam; only tests may set it", fset.Position(id.Pos()), id.Name)
			}
			// Taking its address is how a flag would bind it.
			if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.AND {
				if sel, ok := u.X.(*ast.SelectorExpr); ok && (sel.Sel.Name == "TestRefusal" || sel.Sel.Name == "testRefusal") {
					t.Errorf("%s: the address of the writer's test seam is taken (a flag?)", fset.Position(u.Pos()))
				}
			}
			// Only a read of the seam into another: x.TestRefusal = y.testRefusal.
			if a, ok := n.(*ast.AssignStmt); ok {
				for i, l := range a.Lhs {
					sel, ok := l.(*ast.SelectorExpr)
					if !ok || (sel.Sel.Name != "TestRefusal" && sel.Sel.Name != "testRefusal") || i >= len(a.Rhs) {
						continue
					}
					if r, ok := a.Rhs[i].(*ast.SelectorExpr); !ok || r.Sel.Name != "testRefusal" {
						t.Errorf("%s: product code sets the writer's test seam", fset.Position(a.Pos()))
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
