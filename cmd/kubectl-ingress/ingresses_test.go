package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"
)

func TestIngressesVerb(t *testing.T) {
	code, out, errOut := runCmd(t, "", "ingresses", "-f", "../../examples")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !regexp.MustCompile(`^INGRESS\s+HOST\s+PATH\s+TLS\s+SERVICE\s+PORT\s+ENDPOINTS$`).MatchString(lines[0]) {
		t.Errorf("header %q", lines[0])
	}
	if !regexp.MustCompile(`(?m)^shop/shop\s+shop\.example\.com\s+/api\s+yes\s+api\s+8000\s+2$`).MatchString(out) {
		t.Errorf("no row of shop/shop /api with TLS and 2 endpoints:\n%s", out)
	}
	// Without -f it reads the cluster (TestLintAndIngressesReadTheCluster);
	// -A goes with that only.
	if code, _, errOut := runCmd(t, "", "ingresses", "-A", "-f", "../../examples"); code != exitFailure || !strings.Contains(errOut, "-A reads the cluster") {
		t.Errorf("ingresses -A -f: exit %d, %q", code, errOut)
	}
}

// ingressPathList is what -o json and yaml print: a v1 List of
// IngressPaths.
type ingressPathList struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Items      []struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		ingressRoute
		// The fields ingressRoute keeps out of JSON, to see they are absent.
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"items"`
}

// Every -o of kubectl get on the examples: the table with and without
// headers, and kubectl's printers over the List of IngressPaths.
func TestIngressesPrinters(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	jsonpathFile := file("paths.jsonpath", `{range .items[*]}{.metadata.namespace}/{.metadata.name} {.path}{"\n"}{end}`)
	goTemplateFile := file("paths.tmpl", `{{range .items}}{{.host}} {{.tls}}{{"\n"}}{{end}}`)
	columnsFile := file("columns.txt", "HOST PATH TYPE\n.host .path .pathType\n")

	const paths = "default/blog /blog(/|$)(.*)\ndefault/blog-admin /admin\nshop/shop /api\nshop/shop /\n"
	const hosts = "blog.example.com false\nblog.example.com false\nshop.example.com true\nshop.example.com true\n"
	row := regexp.MustCompile(`^shop/shop\s+shop\.example\.com\s+/api\s+yes\s+api\s+8000\s+2`)
	for _, tc := range []struct {
		name string
		args []string
		// want is the exact stdout, or check looks at it.
		want  string
		check func(t *testing.T, out string)
	}{
		{name: "table", check: func(t *testing.T, out string) {
			lines := strings.Split(out, "\n")
			if len(lines) != 6 || !strings.HasPrefix(lines[0], "INGRESS ") || strings.Contains(lines[0], "PATH TYPE") {
				t.Errorf("a header and 4 rows:\n%s", out)
			}
		}},
		{name: "no headers", args: []string{"--no-headers"}, check: func(t *testing.T, out string) {
			lines := strings.Split(out, "\n")
			if len(lines) != 5 || strings.Contains(out, "INGRESS") || !row.MatchString(lines[2]) {
				t.Errorf("4 rows, no header:\n%s", out)
			}
		}},
		{name: "wide", args: []string{"-o", "wide"}, check: func(t *testing.T, out string) {
			if !regexp.MustCompile(`^INGRESS\s+HOST\s+PATH\s+TLS\s+SERVICE\s+PORT\s+ENDPOINTS\s+PATH TYPE\s+BACKEND\n`).MatchString(out) || strings.Count(out, "\n") != 5 {
				t.Errorf("the wide header and 4 rows:\n%s", out)
			}
		}},
		{name: "wide no headers", args: []string{"-o", "wide", "--no-headers"}, check: func(t *testing.T, out string) {
			lines := strings.Split(out, "\n")
			if len(lines) != 5 || strings.Contains(out, "INGRESS") || !regexp.MustCompile(`\s+Prefix\s+shop-api-8000$`).MatchString(lines[2]) {
				t.Errorf("4 wide rows, no header:\n%s", out)
			}
		}},
		{name: "json", args: []string{"-o", "json"}, check: func(t *testing.T, out string) {
			var l ingressPathList
			if err := json.Unmarshal([]byte(out), &l); err != nil {
				t.Fatal(err)
			}
			checkPathList(t, l)
		}},
		{name: "yaml", args: []string{"-o", "yaml"}, check: func(t *testing.T, out string) {
			var l ingressPathList
			if err := yaml.Unmarshal([]byte(out), &l); err != nil {
				t.Fatal(err)
			}
			checkPathList(t, l)
		}},
		{name: "name", args: []string{"-o", "name"},
			want: "ingress.networking.k8s.io/blog\ningress.networking.k8s.io/blog-admin\ningress.networking.k8s.io/shop\n"},
		{name: "jsonpath", args: []string{"-o", `jsonpath={range .items[*]}{.ingress} {.path}{"\n"}{end}`}, want: paths},
		{name: "jsonpath --template", args: []string{"-o", "jsonpath", "--template", `{.items[*].port}`}, want: "80 80 8000 http"},
		{name: "jsonpath-as-json", args: []string{"-o", "jsonpath-as-json={.items[*].endpoints}"}, want: "[\n    1,\n    1,\n    2,\n    1\n]\n"},
		{name: "jsonpath-file", args: []string{"-o", "jsonpath-file=" + jsonpathFile}, want: paths},
		{name: "go-template", args: []string{"-o", `go-template={{range .items}}{{.host}} {{.tls}}{{"\n"}}{{end}}`}, want: hosts},
		{name: "template", args: []string{"-o", `template={{range .items}}{{.host}} {{.tls}}{{"\n"}}{{end}}`}, want: hosts},
		{name: "--template alone", args: []string{"--template", `{{len .items}}`}, want: "4"},
		{name: "go-template-file", args: []string{"-o", "go-template-file=" + goTemplateFile}, want: hosts},
		{name: "templatefile", args: []string{"-o", "templatefile", "--template", goTemplateFile}, want: hosts},
		{name: "custom-columns", args: []string{"-o", "custom-columns=NAMESPACE:.metadata.namespace,HOST:.host,ENDPOINTS:.endpoints,MISSING:.spec.nope"},
			want: "NAMESPACE   HOST               ENDPOINTS   MISSING\n" +
				"default     blog.example.com   1           <none>\n" +
				"default     blog.example.com   1           <none>\n" +
				"shop        shop.example.com   2           <none>\n" +
				"shop        shop.example.com   1           <none>\n"},
		{name: "custom-columns no headers", args: []string{"-o", "custom-columns=INGRESS:{.ingress},TLS:tls", "--no-headers"},
			want: "default/blog         false\ndefault/blog-admin   false\nshop/shop            true\nshop/shop            true\n"},
		{name: "custom-columns-file", args: []string{"-o", "custom-columns-file=" + columnsFile},
			want: "HOST               PATH             TYPE\n" +
				"blog.example.com   /blog(/|$)(.*)   ImplementationSpecific\n" +
				"blog.example.com   /admin           Exact\n" +
				"shop.example.com   /api             Prefix\n" +
				"shop.example.com   /                Prefix\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, "", append([]string{"ingresses", "-f", "../../examples"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if tc.check != nil {
				tc.check(t, out)
			} else if out != tc.want {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, tc.want)
			}
		})
	}
}

func checkPathList(t *testing.T, l ingressPathList) {
	t.Helper()
	if l.APIVersion != "v1" || l.Kind != "List" || len(l.Items) != 4 {
		t.Fatalf("a v1 List of 4 items: %+v", l)
	}
	api := l.Items[2]
	if api.APIVersion != ingressPathAPIVersion || api.Kind != ingressPathKind || api.Metadata.Namespace != "shop" || api.Metadata.Name != "shop" ||
		api.Ingress != "shop/shop" || api.Host != "shop.example.com" || api.Path != "/api" || api.PathType != "Prefix" || !api.TLS ||
		api.Service != "api" || api.Port != "8000" || api.Backend != "shop-api-8000" || api.Endpoints != 2 {
		t.Errorf("item of shop/shop /api: %+v", api)
	}
	if api.Name != "" || api.Namespace != "" {
		t.Errorf("name and namespace are in metadata only: %+v", api)
	}
}

// A bad format or template exits 3 with kubectl's text, naming the flag
// and the help, and prints nothing on stdout (but what kubectl's
// go-template printer writes there for debugging).
func TestIngressesPrinterErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
		// out is how stdout begins, empty for nothing.
		out string
	}{
		{[]string{"-o", "table"}, `--output: unable to match a printer suitable for the output format "table", allowed formats are: custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,kyaml,name,template,templatefile,wide,yaml`, ""},
		{[]string{"-o", "jsonpath={.items["}, "--output: error parsing jsonpath {.items[, unterminated array", ""},
		{[]string{"-o", "jsonpath"}, "--output: template format specified but no template given", ""},
		{[]string{"-o", "jsonpath", "--template", "{.items[*"}, "--template: error parsing jsonpath {.items[*, unterminated array", ""},
		{[]string{"-o", "jsonpath-file=/nonexistent/t"}, "--output: error reading --template /nonexistent/t, open /nonexistent/t: no such file or directory", ""},
		{[]string{"-o", "go-template={{.items"}, "--output: error parsing template {{.items, template: output:1: unclosed action", ""},
		{[]string{"--template", "{{end}}"}, "--template: error parsing template {{end}}, template: output:1: unexpected {{end}}", ""},
		{[]string{"-o", "go-template-file=/nonexistent/t"}, "--output: error reading --template /nonexistent/t, open /nonexistent/t: no such file or directory", ""},
		{[]string{"-o", "custom-columns"}, "--output: custom-columns format specified but no custom columns given", ""},
		{[]string{"-o", "custom-columns=HOST"}, "--output: unexpected custom-columns spec: HOST, expected <header>:<json-path-expr>", ""},
		{[]string{"-o", "custom-columns=HOST:{.host"}, "--output: unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'", ""},
		{[]string{"-o", "custom-columns-file=/nonexistent/c"}, "--output: error reading template /nonexistent/c, open /nonexistent/c: no such file or directory", ""},
		{[]string{"-o", "jsonpath={.items[0].nope}", "--allow-missing-template-keys=false"}, `--output: error executing jsonpath "{.items[0].nope}": Error executing template: nope is not found.`, ""},
		{[]string{"-o", "go-template={{.nope.x}}", "--allow-missing-template-keys=false"}, `--output: error executing template "{{.nope.x}}"`,
			"Error executing template: template: output:1:7: executing \"output\" at <.nope.x>: map has no entry for key \"nope\". Printing more information for debugging the template:\n"},
		{[]string{"--show-managed-fields"}, "unknown flag: --show-managed-fields", ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runCmd(t, "", append([]string{"ingresses", "-f", "../../examples"}, tc.args...)...)
			if code != exitFailure || !strings.Contains(errOut, "error: "+tc.want) || !strings.Contains(errOut, "See 'kubectl ingress ingresses --help' for usage.") {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, errOut, exitFailure, tc.want)
			}
			if !strings.HasPrefix(out, tc.out) || (tc.out == "" && out != "") {
				t.Errorf("stdout %q, want it to begin with %q", out, tc.out)
			}
		})
	}
}

// --help and README's ingresses line name every -o format the verb takes,
// and --no-headers.
func TestIngressesFormatsDocumented(t *testing.T) {
	_, help, _ := runCmd(t, "", "ingresses", "--help")
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(readme), "`kubectl ingress ingresses -f FILES`")
	if i < 0 {
		t.Fatal("README has no `kubectl ingress ingresses -f FILES`")
	}
	section := string(readme[i:])
	section = section[:strings.Index(section, "\n- ")]
	long := newCmdIngresses(genericiooptions.NewTestIOStreamsDiscard()).Long
	for _, format := range append(newListPrintFlags().AllowedFormats(), "--no-headers", "--template") {
		if !regexp.MustCompile(`(^|[^-\w])` + regexp.QuoteMeta(format) + `($|[^-\w])`).MatchString(long) {
			t.Errorf("ingresses --help's text does not name %s", format)
		}
		if !strings.Contains(help, format) {
			t.Errorf("ingresses --help does not name %s", format)
		}
		if !regexp.MustCompile("[`|, ]" + regexp.QuoteMeta(format) + "[`|,. ]").MatchString(section) {
			t.Errorf("README's ingresses line does not name %s:\n%s", format, section)
		}
	}
}

// backends --no-headers prints the table and wide rows of -o table and
// wide without their header line, as kubectl get (columns as wide as the
// rows need); other formats ignore it.
func TestBackendsNoHeaders(t *testing.T) {
	url := serveAnswer(t, filepath.Join(backendsGoldenDir, "canary"))
	for _, format := range []string{outputTable, outputWide, outputJSON, outputName} {
		t.Run(format, func(t *testing.T) {
			_, with, _ := runCmd(t, "", "backends", "--url", url, "-o", format)
			code, without, errOut := runCmd(t, "", "backends", "--url", url, "-o", format, "--no-headers")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			want := with
			if format == outputTable || format == outputWide {
				if !strings.HasPrefix(with, "NAME ") {
					t.Fatalf("no header in\n%s", with)
				}
				want = with[strings.Index(with, "\n")+1:]
			}
			cells := func(s string) string { return regexp.MustCompile(` {2,}`).ReplaceAllString(s, "|") }
			if cells(without) != cells(want) {
				t.Errorf("--no-headers:\n%s\nwant the rows of:\n%s", without, want)
			}
		})
	}
}
