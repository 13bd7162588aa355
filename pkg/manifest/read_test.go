package manifest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// writeTree writes files (slash-separated relative path → content) under a
// new temporary directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// names lists the objects of a snapshot as "Kind ns/name", kind by kind in
// snapshot order.
func names(s render.Snapshot) []string {
	var out []string
	for _, o := range s.IngressClasses {
		out = append(out, "IngressClass "+o.Namespace+"/"+o.Name)
	}
	for _, o := range s.Ingresses {
		out = append(out, "Ingress "+o.Namespace+"/"+o.Name)
	}
	for _, o := range s.Services {
		out = append(out, "Service "+o.Namespace+"/"+o.Name)
	}
	for _, o := range s.EndpointSlices {
		out = append(out, "EndpointSlice "+o.Namespace+"/"+o.Name)
	}
	for _, o := range s.Secrets {
		out = append(out, "Secret "+o.Namespace+"/"+o.Name)
	}
	for _, o := range s.ConfigMaps {
		out = append(out, "ConfigMap "+o.Namespace+"/"+o.Name)
	}
	return out
}

const allKinds = `# a comment before the first separator is not a document
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
  namespace: ignored-for-cluster-scoped
spec:
  controller: k8s.io/ingress-nginx
---
---
# only a comment: an empty document
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
spec:
  ingressClassName: nginx
  rules:
  - host: web.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: web
            port:
              name: http
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  ports:
  - name: http
    port: 80
    targetPort: 8080
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-abc
  namespace: shop
  labels:
    kubernetes.io/service-name: web
addressType: IPv4
endpoints:
- addresses: ["10.0.0.1"]
ports:
- name: http
  port: 8080
---
apiVersion: v1
kind: Secret
metadata:
  name: tls
type: kubernetes.io/tls
data:
  tls.crt: Y2VydA==
  tls.key: b2xk
stringData:
  tls.key: new
  extra: plain
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: ingress-nginx-controller
  namespace: ingress-nginx
data:
  use-gzip: "true"
`

func TestReadKinds(t *testing.T) {
	dir := writeTree(t, map[string]string{"all.yaml": allKinds})
	res, err := Read([]string{filepath.Join(dir, "all.yaml")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"IngressClass /nginx",
		"Ingress default/web",
		"Service shop/web",
		"EndpointSlice shop/web-abc",
		"Secret default/tls",
		"ConfigMap ingress-nginx/ingress-nginx-controller",
	}
	if got := names(res.Snapshot); !reflect.DeepEqual(got, want) {
		t.Errorf("objects\n got %q\nwant %q", got, want)
	}
	if len(res.Skipped) != 0 {
		t.Errorf("skipped %v", res.Skipped)
	}

	ing := res.Snapshot.Ingresses[0]
	if ing.Kind != "Ingress" || ing.APIVersion != "networking.k8s.io/v1" {
		t.Errorf("Ingress TypeMeta = %+v", ing.TypeMeta)
	}
	if got := ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Port.Name; got != "http" {
		t.Errorf("Ingress backend port name = %q", got)
	}
	if got := res.Snapshot.Services[0].Spec.Ports[0].TargetPort; got != intstr.FromInt32(8080) {
		t.Errorf("Service targetPort = %v", got)
	}
	if got := res.Snapshot.EndpointSlices[0].Endpoints[0].Addresses; !reflect.DeepEqual(got, []string{"10.0.0.1"}) {
		t.Errorf("EndpointSlice addresses = %v", got)
	}
	if got := res.Snapshot.ConfigMaps[0].Data["use-gzip"]; got != "true" {
		t.Errorf("ConfigMap use-gzip = %q", got)
	}

	sec := res.Snapshot.Secrets[0]
	wantData := map[string][]byte{"tls.crt": []byte("cert"), "tls.key": []byte("new"), "extra": []byte("plain")}
	if !reflect.DeepEqual(sec.Data, wantData) || sec.StringData != nil || sec.Type != corev1.SecretTypeTLS {
		t.Errorf("Secret data = %q, stringData = %q, type %q", sec.Data, sec.StringData, sec.Type)
	}
}

func TestReadNamespaces(t *testing.T) {
	dir := writeTree(t, map[string]string{"all.yaml": allKinds})
	res, err := Read([]string{dir}, Options{DefaultNamespace: "team-a"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Snapshot.Ingresses[0].Namespace; got != "team-a" {
		t.Errorf("Ingress without a namespace got %q, want the -n namespace", got)
	}
	if got := res.Snapshot.Services[0].Namespace; got != "shop" {
		t.Errorf("Service namespace = %q, want its own", got)
	}
	if got := res.Snapshot.IngressClasses[0].Namespace; got != "" {
		t.Errorf("IngressClass namespace = %q, want none (cluster-scoped)", got)
	}
}

func TestReadFormats(t *testing.T) {
	const svcJSON = `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "%s", "namespace": "ns"}}`
	svc := func(name string) string { return strings.Replace(svcJSON, "%s", name, 1) }
	for _, tc := range []struct {
		name    string
		file    string
		content string
		want    []string
		skipped map[string]int
	}{
		{
			name:    "one JSON object",
			file:    "one.json",
			content: svc("a"),
			want:    []string{"Service ns/a"},
		},
		{
			name:    "JSON stream",
			file:    "stream.json",
			content: svc("b") + "\n" + svc("a") + svc("c") + "\n",
			want:    []string{"Service ns/a", "Service ns/b", "Service ns/c"},
		},
		{
			name:    "JSON documents behind separators, as hack/genmanifests writes",
			file:    "gen.yaml",
			content: "---\n" + svc("b") + "\n---\n" + svc("a") + "\n",
			want:    []string{"Service ns/a", "Service ns/b"},
		},
		{
			name:    "YAML flow mapping that is not JSON",
			file:    "flow.yaml",
			content: "{apiVersion: v1, kind: Service, metadata: {name: flow, namespace: ns}}\n",
			want:    []string{"Service ns/flow"},
		},
		{
			name:    "content after the separator on the same line",
			file:    "inline.yaml",
			content: "--- " + svc("a") + "\n--- # a comment\napiVersion: v1\nkind: Service\nmetadata: {name: b, namespace: ns}\n",
			want:    []string{"Service ns/a", "Service ns/b"},
		},
		{
			name:    "CRLF line endings and a byte order mark",
			file:    "crlf.yaml",
			content: "\xEF\xBB\xBF---\r\napiVersion: v1\r\nkind: Service\r\nmetadata:\r\n  name: a\r\n  namespace: ns\r\n---\r\napiVersion: v1\r\nkind: Service\r\nmetadata:\r\n  name: b\r\n  namespace: ns\r\n",
			want:    []string{"Service ns/a", "Service ns/b"},
		},
		{
			name:    "a line that starts with dashes inside a block scalar is not a separator",
			file:    "block.yaml",
			content: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ns}\ndata:\n  text: |\n    ---not a separator\n    ---\n",
			want:    []string{"ConfigMap ns/c"},
		},
		{
			name:    "empty file",
			file:    "empty.yaml",
			content: "",
		},
		{
			name:    "only separators, comments and nulls",
			file:    "blank.yaml",
			content: "# nothing\n---\n\n---\n# still nothing\n---\nnull\n---\n~\n",
		},
		{
			name: "List with items of several kinds",
			file: "list.yaml",
			content: `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata: {name: s, namespace: ns}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: d, namespace: ns}
  spec: {anything: goes}
- apiVersion: v1
  kind: List
  items:
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: nested, namespace: ns}}
`,
			want:    []string{"Service ns/s", "ConfigMap ns/nested"},
			skipped: map[string]int{"apps/v1/Deployment": 1},
		},
		{
			name: "typed list whose items have no apiVersion and kind, as the API server returns them",
			file: "ingresslist.json",
			content: `{"apiVersion": "networking.k8s.io/v1", "kind": "IngressList", "metadata": {"resourceVersion": "7"},
			 "items": [{"metadata": {"name": "b", "namespace": "ns"}}, {"metadata": {"name": "a", "namespace": "ns"}}]}`,
			want: []string{"Ingress ns/a", "Ingress ns/b"},
		},
		{
			name:    "an empty List",
			file:    "emptylist.yaml",
			content: "apiVersion: v1\nkind: List\nitems: []\n",
		},
		{
			name: "other kinds and other versions of our kinds are skipped and counted",
			file: "others.yaml",
			content: `apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec: {replicas: "not even checked"}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
---
apiVersion: networking.k8s.io/v1beta1
kind: Ingress
metadata: {name: old}
---
apiVersion: extensions/v1beta1
kind: Ingress
metadata: {name: older}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d2}
---
apiVersion: example.com/v1
kind: WidgetList
metadata: {name: not-a-list-without-items}
`,
			skipped: map[string]int{
				"apps/v1/Deployment":                2,
				"v1/Pod":                            1,
				"networking.k8s.io/v1beta1/Ingress": 1,
				"extensions/v1beta1/Ingress":        1,
				"example.com/v1/WidgetList":         1,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{tc.file: tc.content})
			res, err := Read([]string{filepath.Join(dir, tc.file)}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := names(res.Snapshot); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("objects\n got %q\nwant %q", got, tc.want)
			}
			want := tc.skipped
			if want == nil {
				want = map[string]int{}
			}
			if !reflect.DeepEqual(res.Skipped, want) {
				t.Errorf("skipped %v, want %v", res.Skipped, want)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	const ok = "apiVersion: v1\nkind: Service\nmetadata: {name: fine}\n"
	for _, tc := range []struct {
		name    string
		file    string
		content string
		want    string // the whole message after the directory
	}{
		{
			name:    "YAML syntax",
			file:    "bad.yaml",
			content: ok + "---\n" + strings.Replace(ok, "fine", "other", 1) + "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: [unclosed\n",
			want:    "bad.yaml: document 3: invalid YAML: yaml: line 12: did not find expected ',' or ']'",
		},
		{
			name:    "field of the wrong type",
			file:    "type.yaml",
			content: "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports:\n  - port: eighty\n",
			want:    "type.yaml: document 1: v1 Service: json: cannot unmarshal string into Go struct field ServicePort.spec.ports.port of type int32",
		},
		{
			name:    "unknown field of our kind",
			file:    "unknown.yaml",
			content: "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i, namespace: ns}\nspec:\n  rule: []\n",
			want:    `unknown.yaml: document 1: networking.k8s.io/v1 Ingress ns/i: strict decoding error: unknown field "spec.rule"`,
		},
		{
			name:    "field with the wrong case",
			file:    "case.json",
			content: `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "Data": {}}`,
			want:    `case.json: document 1: v1 ConfigMap c: strict decoding error: unknown field "Data"`,
		},
		{
			name:    "duplicate field in YAML",
			file:    "dupfield.yaml",
			content: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {}\ndata: {}\n",
			want:    `dupfield.yaml: document 1: invalid YAML: yaml: unmarshal errors:` + "\n" + `  line 5: key "data" already set in map`,
		},
		{
			name:    "duplicate field in JSON",
			file:    "dupfield.json",
			content: `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {}, "data": {}}`,
			want:    `dupfield.json: document 1: v1 ConfigMap c: strict decoding error: duplicate field "data"`,
		},
		{
			name:    "no kind",
			file:    "nokind.yaml",
			content: ok + "---\napiVersion: v1\nmetadata: {name: x}\n",
			want:    "nokind.yaml: document 2: kind is not set",
		},
		{
			name:    "no apiVersion",
			file:    "noversion.yaml",
			content: "kind: Service\nmetadata: {name: x}\n",
			want:    "noversion.yaml: document 1: apiVersion is not set (kind Service)",
		},
		{
			name:    "no name",
			file:    "noname.yaml",
			content: "apiVersion: v1\nkind: Service\nmetadata: {namespace: ns}\n",
			want:    "noname.yaml: document 1: Service: metadata.name is not set",
		},
		{
			name:    "not an object",
			file:    "scalar.yaml",
			content: ok + "---\n- a\n- b\n",
			want:    "scalar.yaml: document 2: want an object with apiVersion and kind, not a list",
		},
		{
			name:    "bad item of a List",
			file:    "list.yaml",
			content: "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: fine}}\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: s}\n  data: {key: '%%%'}\n",
			want:    "list.yaml: document 1: items[1]: v1 Secret: illegal base64 data at input byte 0",
		},
		{
			name:    "malformed JSON in a .json file, second document of a stream",
			file:    "stream.json",
			content: "{\"apiVersion\": \"v1\", \"kind\": \"Service\", \"metadata\": {\"name\": \"x\"}}\n\n{\"apiVersion\": \"v1\",\n \"kind\": \"Service\" \"metadata\": {}}\n",
			want:    "stream.json: document 2: invalid JSON at line 4: invalid character '\"' after object key:value pair",
		},
		{
			name:    "malformed JSON in a .json file",
			file:    "broken.json",
			content: `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "x"}`,
			want:    "broken.json: document 1: invalid JSON at line 1: unexpected end of JSON input",
		},
		{
			name:    "malformed JSON document of a kind we skip",
			file:    "skipped.yaml",
			content: ok + "---\n{\"apiVersion\": \"apps/v1\", \"kind\": \"Deployment\", \"spec\": [}\n",
			want:    "skipped.yaml: document 2: invalid YAML: yaml: line ", // go-yaml counts parser error lines from 0
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{tc.file: tc.content})
			res, err := Read([]string{dir}, Options{})
			if err == nil {
				t.Fatalf("no error; read %q", names(res.Snapshot))
			}
			if res != nil {
				t.Error("a failed read returned a result")
			}
			msg := strings.TrimPrefix(err.Error(), dir+string(filepath.Separator))
			if !strings.HasPrefix(msg, tc.want) {
				t.Errorf("error\n got %s\nwant %s…", msg, tc.want)
			}
			var de *DocumentError
			if !errors.As(err, &de) || de.File != filepath.Join(dir, tc.file) {
				t.Errorf("error is not a *DocumentError for the file: %#v", err)
			}
		})
	}
}

// The first bad document in reading order is reported, whatever finishes
// first on the decoding goroutines.
func TestReadReportsFirstError(t *testing.T) {
	var b strings.Builder
	for range 200 {
		b.WriteString("---\n{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"c\"}, \"data\": {\"k\": 1}}\n")
	}
	dir := writeTree(t, map[string]string{"a.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: x}]}\n", "b.yaml": b.String()})
	for range 5 {
		_, err := Read([]string{dir}, Options{})
		var de *DocumentError
		if !errors.As(err, &de) || filepath.Base(de.File) != "a.yaml" || de.Document != 1 {
			t.Fatalf("error %v, want the one of a.yaml document 1", err)
		}
	}
}

func TestReadDuplicates(t *testing.T) {
	const svc = "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n"
	dir := writeTree(t, map[string]string{
		"a.yaml": svc,
		"b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: shop}\n---\n" + svc,
	})
	_, err := Read([]string{dir}, Options{})
	want := "Service shop/web is defined twice: in " + filepath.Join(dir, "a.yaml") + ": document 1 and in " + filepath.Join(dir, "b.yaml") + ": document 2"
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}

	// The default namespace counts: "web" without a namespace is default/web.
	dir = writeTree(t, map[string]string{
		"a.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: default}\n",
	})
	if _, err := Read([]string{dir}, Options{}); err == nil || !strings.Contains(err.Error(), "Service default/web is defined twice") {
		t.Errorf("error %v", err)
	}

	// The same name in two namespaces or of two kinds is no duplicate.
	dir = writeTree(t, map[string]string{
		"a.yaml": svc + "---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: other}\n",
	})
	if _, err := Read([]string{dir}, Options{}); err != nil {
		t.Error(err)
	}
}

func TestReadDirectories(t *testing.T) {
	cm := func(name string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + ", namespace: ns}\n"
	}
	dir := writeTree(t, map[string]string{
		"b.yaml":            cm("b"),
		"a.yml":             cm("a"),
		"c.json":            `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "ns"}}`,
		"notes.txt":         "not a manifest",
		"README.md":         "# not a manifest",
		"sub/d.yaml":        cm("d"),
		"sub/deeper/e.yaml": cm("e"),
	})
	rel := func(paths ...string) []string {
		var out []string
		for _, p := range paths {
			out = append(out, filepath.Join(dir, filepath.FromSlash(p)))
		}
		return out
	}

	res, err := Read([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := rel("a.yml", "b.yaml", "c.json"); !reflect.DeepEqual(res.Files, want) {
		t.Errorf("files %q, want %q", res.Files, want)
	}
	if want := []string{"ConfigMap ns/a", "ConfigMap ns/b", "ConfigMap ns/c"}; !reflect.DeepEqual(names(res.Snapshot), want) {
		t.Errorf("objects %q", names(res.Snapshot))
	}

	res, err = Read([]string{dir}, Options{Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := rel("a.yml", "b.yaml", "c.json", "sub/d.yaml", "sub/deeper/e.yaml"); !reflect.DeepEqual(res.Files, want) {
		t.Errorf("recursive files %q, want %q", res.Files, want)
	}

	// A file named on its own is read whatever its name; paths keep their
	// order; a directory and a file in it are both read (and then the
	// objects are duplicates).
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(cm("txt")), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = Read(rel("sub/d.yaml", "notes.txt"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := rel("sub/d.yaml", "notes.txt"); !reflect.DeepEqual(res.Files, want) {
		t.Errorf("files %q, want %q", res.Files, want)
	}
	if want := []string{"ConfigMap ns/d", "ConfigMap ns/txt"}; !reflect.DeepEqual(names(res.Snapshot), want) {
		t.Errorf("objects %q", names(res.Snapshot))
	}
	if _, err := Read(append(rel("sub"), rel("sub/d.yaml")...), Options{}); err == nil || !strings.Contains(err.Error(), "defined twice") {
		t.Errorf("reading a file twice: %v", err)
	}
}

func TestReadMissingPath(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.yaml")
	_, err := Read([]string{missing}, Options{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("error %v, want one that names %s", err, missing)
	}
	if _, err := Read(nil, Options{}); err == nil {
		t.Error("no paths: no error")
	}
}

func TestReadStdin(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: file}\n"})
	stdin := strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: piped}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
	res, err := Read([]string{"-", dir}, Options{Stdin: stdin})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{StdinName, filepath.Join(dir, "a.yaml")}; !reflect.DeepEqual(res.Files, want) {
		t.Errorf("files %q", res.Files)
	}
	if want := []string{"ConfigMap default/file", "ConfigMap default/piped"}; !reflect.DeepEqual(names(res.Snapshot), want) {
		t.Errorf("objects %q", names(res.Snapshot))
	}
	if got, want := res.Summary(), "read 2 files: 2 ConfigMap; skipped 1 object: 1 v1/Pod"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}

	_, err = Read([]string{"-"}, Options{Stdin: strings.NewReader("kind: Service\n")})
	if err == nil || !strings.HasPrefix(err.Error(), "<stdin>: document 1: ") {
		t.Errorf("error %v, want one naming <stdin>", err)
	}
	if _, err := Read([]string{"-"}, Options{}); err == nil {
		t.Error(`"-" without stdin: no error`)
	}
	if _, err := Read([]string{"-", "-"}, Options{Stdin: strings.NewReader("")}); err == nil {
		t.Error(`"-" twice: no error`)
	}
}

func TestReadOrderIsDeterministic(t *testing.T) {
	ing := func(ns, name string) string {
		return "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: " + name + ", namespace: " + ns + "}\n"
	}
	dir := writeTree(t, map[string]string{
		"1.yaml": ing("b", "a") + "---\n" + ing("a", "z"),
		"2.yaml": ing("a", "b") + "---\n" + ing("b", "c0"),
	})
	res, err := Read([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Ingress a/b", "Ingress a/z", "Ingress b/a", "Ingress b/c0"}
	if got := names(res.Snapshot); !reflect.DeepEqual(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
}

func TestSummary(t *testing.T) {
	r := &Result{Files: []string{"a.yaml"}, Skipped: map[string]int{}}
	if got, want := r.Summary(), "read 1 file: no objects"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	r.Snapshot.Services = make([]*corev1.Service, 3)
	r.Snapshot.ConfigMaps = make([]*corev1.ConfigMap, 1)
	r.Skipped = map[string]int{"v1/Pod": 1, "apps/v1/Deployment": 2}
	if got, want := r.Summary(), "read 1 file: 1 ConfigMap, 3 Service; skipped 3 objects: 2 apps/v1/Deployment, 1 v1/Pod"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	live := &Result{Source: "the cluster, namespace shop", Snapshot: r.Snapshot}
	if got, want := live.Summary(), "read from the cluster, namespace shop: 1 ConfigMap, 3 Service"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// The set that the benchmarks of the whole renderer use reads completely.
func TestReadGenerated(t *testing.T) {
	dir := generate(t, t.TempDir(), "200")
	res, err := Read([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Snapshot
	got := map[string]int{
		"Ingress": len(s.Ingresses), "IngressClass": len(s.IngressClasses), "Service": len(s.Services),
		"EndpointSlice": len(s.EndpointSlices), "Secret": len(s.Secrets), "ConfigMap": len(s.ConfigMaps),
	}
	want := map[string]int{"Ingress": 200, "IngressClass": 1, "Service": 200, "EndpointSlice": 200, "Secret": 10, "ConfigMap": 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("counts %v, want %v", got, want)
	}
	if len(res.Files) != 6 || len(res.Skipped) != 0 {
		t.Errorf("files %q, skipped %v", res.Files, res.Skipped)
	}
	if got, want := res.Summary(), "read 6 files: 1 ConfigMap, 200 EndpointSlice, 200 Ingress, 1 IngressClass, 10 Secret, 200 Service"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if s.Secrets[0].Namespace != "team-00" || len(s.Secrets[0].Data["tls.crt"]) == 0 {
		t.Errorf("first secret %s/%s with %d bytes of certificate", s.Secrets[0].Namespace, s.Secrets[0].Name, len(s.Secrets[0].Data["tls.crt"]))
	}
	if len(s.EndpointSlices[0].Endpoints) != 3 {
		t.Errorf("endpoint slice with %d endpoints, want 3", len(s.EndpointSlices[0].Endpoints))
	}

	again, err := Read([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Snapshot, res.Snapshot) {
		t.Error("a second read gives another snapshot")
	}
}
