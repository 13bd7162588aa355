package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"
)

// Every error path exits 3, a status no verdict uses: a typo in CI is never
// read as "dynamic only" (1) or "reload required" (2).
func TestExitStatusOfUsageErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown command", []string{"bogus"}, `unknown command "bogus"`},
		{"unknown command, suggestion", []string{"rendr"}, "Did you mean this?\n\trender"},
		{"diff unknown flag", []string{"diff", "--bogus"}, "unknown flag: --bogus"},
		{"diff stray argument", []string{"diff", "x", "--from", "../../examples", "--to", "../../examples"}, `unexpected argument "x"`},
		{"diff bad port", []string{"diff", "--from", "../../examples", "--to", "../../examples", "--http-port=abc"}, `invalid argument "abc" for "--http-port"`},
		{"diff bad --fail-on", []string{"diff", "--from", "../../examples", "--to", "../../examples", "--fail-on=maybe"}, "--fail-on must be"},
		{"render unknown flag", []string{"render", "--bogus"}, "unknown flag: --bogus"},
		{"render stray argument", []string{"render", "-f", "../../examples", "examples"}, `unexpected argument "examples"`},
		{"render bad port", []string{"render", "-f", "../../examples", "--http-port=abc"}, `invalid argument "abc"`},
		{"render unknown format", []string{"render", "-f", "../../examples", "-o", "jsn"}, `--output must be json, yaml or nginx, got "jsn"`},
		{"render --host without -o nginx", []string{"render", "-f", "../../examples", "--host", "a"}, "--host goes with -o nginx"},
		{"render empty stdin", []string{"render", "-f", "-"}, "no objects in the input: <stdin> read"},
		{"render unknown host", []string{"render", "-f", "../../examples", "-o", "nginx", "--host", "nope.example.com"}, `no server block for host "nope.example.com"`},
		{"backends unknown flag", []string{"backends", "--bogus"}, "unknown flag: --bogus"},
		{"backends stray argument", []string{"backends", "pod-1"}, `unexpected argument "pod-1"`},
		{"controller unknown flag", []string{"controller", "--bogus"}, "unknown flag: --bogus"},
		{"controller stray argument", []string{"controller", "examples/"}, `unexpected argument "examples/"`},
		{"controller bad value", []string{"controller", "--from-files", dir, "--sync-rate-limit=fast"}, `invalid argument "fast"`},
		{"version stray argument", []string{"version", "now"}, `unexpected argument "now"`},
		{"completion bad shell", []string{"completion", "tcsh"}, `invalid argument "tcsh"`},
		{"lint unknown flag", []string{"lint", "--bogus"}, "unknown flag: --bogus"},
		{"conf two targets", []string{"conf", "--pod", "a", "--deployment", "b"}, "give one of --pod, -l, --deployment and --url, not --pod and --deployment"},
		{"certs without --host", []string{"certs", "--pod", "a"}, "give --host HOST"},
		{"certs bad url", []string{"certs", "--host", "a", "--url", "ftp://x"}, "--url must be an http:// or https:// URL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, "", tc.args...)
			if code != exitFailure || !strings.Contains(errOut, tc.want) {
				t.Errorf("%q: exit %d, stderr %q; want 3 and %q", tc.args, code, errOut, tc.want)
			}
			if out != "" {
				t.Errorf("%q: stdout %q, want none", tc.args, out)
			}
		})
	}
}

// A flag error says where the usage is.
func TestUsageErrorsNameTheHelp(t *testing.T) {
	_, _, errOut := runCmd(t, "", "diff", "--bogus")
	if !strings.Contains(errOut, "See 'kubectl ingress diff --help' for usage.") {
		t.Errorf("stderr %q lacks the help pointer", errOut)
	}
	_, _, errOut = runCmd(t, "", "bogus")
	if !strings.Contains(errOut, "See 'kubectl ingress --help' for usage.") {
		t.Errorf("stderr %q lacks the help pointer", errOut)
	}
}

// The exit status table of --help and README's are the same lines.
func TestExitStatusTableInHelpAndREADME(t *testing.T) {
	code, out, _ := runCmd(t, "", "--help")
	if code != 0 || !strings.Contains(out, exitStatusHelp) {
		t.Fatalf("root --help (exit %d) lacks the exit status table:\n%s", code, out)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("```\n"+exitStatusHelp+"\n```")) {
		t.Errorf("README.md lacks the exit status table of --help:\n%s", exitStatusHelp)
	}
	for _, stale := range []string{"1 unreadable input", "Exit status: 0; 1 on an error"} {
		if bytes.Contains(readme, []byte(stale)) {
			t.Errorf("README.md still says %q", stale)
		}
	}
}

func TestRenderOutputFormats(t *testing.T) {
	code, out, errOut := runCmd(t, "", "render", "-f", "../../examples", "-o", "json")
	if code != 0 {
		t.Fatalf("-o json: exit %d: %s", code, errOut)
	}
	var doc struct {
		Kind      string            `json:"kind"`
		Summary   string            `json:"summary"`
		NGINXConf string            `json:"nginxConf"`
		Backends  []json.RawMessage `json:"backends"`
		Servers   struct {
			Servers map[string]json.RawMessage `json:"servers"`
		} `json:"servers"`
		Problems []struct {
			Text string `json:"text"`
		} `json:"problems"`
		Routes []struct {
			Host string `json:"host"`
		} `json:"routes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("-o json is not JSON: %v\n%s", err, out)
	}
	// the default routing is lua: shop.example.com is a route entry
	routed := slices.ContainsFunc(doc.Routes, func(r struct {
		Host string `json:"host"`
	}) bool {
		return r.Host == "shop.example.com"
	})
	if doc.Kind != "RenderResult" || !routed || strings.Contains(doc.NGINXConf, "shop.example.com") || len(doc.Backends) != 4 ||
		len(doc.Servers.Servers) == 0 || !strings.Contains(doc.Summary, "rendered 3 servers") || doc.Problems == nil {
		t.Errorf("-o json: %+v", doc)
	}
	if strings.Contains(out, "PRIVATE KEY") {
		t.Error("-o json holds a private key")
	}
	if _, err := os.Stat("json"); err == nil {
		t.Error("-o json created a directory json/")
	}

	code, yout, errOut := runCmd(t, "", "render", "-f", "../../examples", "-o", "yaml")
	if code != 0 {
		t.Fatalf("-o yaml: exit %d: %s", code, errOut)
	}
	var fromYAML map[string]any
	if err := yaml.Unmarshal([]byte(yout), &fromYAML); err != nil || fromYAML["nginxConf"] != doc.NGINXConf {
		t.Errorf("-o yaml differs from -o json (%v)", err)
	}

	code, conf, _ := runCmd(t, "", "render", "-f", "../../examples", "-o", "nginx")
	if code != 0 || conf != doc.NGINXConf {
		t.Errorf("-o nginx: exit %d, not the nginx.conf of -o json", code)
	}
	code, server, _ := runCmd(t, "", "render", "-f", "../../examples", "-o", "nginx", "--host", "shop.example.com", "--routing", "nginx")
	if code != 0 || !strings.HasPrefix(strings.TrimSpace(server), "## start server shop.example.com") ||
		!strings.HasSuffix(strings.TrimSpace(server), "## end server shop.example.com") || strings.Contains(server, "blog.example.com") {
		t.Errorf("-o nginx --host --routing nginx: exit %d:\n%s", code, server)
	}
	// by default (--routing=lua) the host is a route entry, not a server block
	code, entry, _ := runCmd(t, "", "render", "-f", "../../examples", "-o", "nginx", "--host", "shop.example.com")
	if code != 0 || !strings.HasPrefix(entry, "## host shop.example.com: no server block; lua/router.lua routes it (--routing=lua) by this entry:\n{") ||
		!strings.Contains(entry, `"backend": "shop-api-8000"`) || strings.Contains(entry, "blog.example.com") {
		t.Errorf("-o nginx --host: exit %d:\n%s", code, entry)
	}
	// conf is ingress-nginx's verb for the same.
	if code, c, _ := runCmd(t, "", "conf", "-f", "../../examples", "--host", "shop.example.com"); code != 0 || c != entry {
		t.Errorf("conf --host: exit %d, not render -o nginx --host:\n%s", code, c)
	}
}

// -o DIR, render's old -o, still writes the directory, with a warning;
// --output-dir is the flag.
func TestRenderOldOutputDirFlag(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCmd(t, "", "render", "-f", "../../examples", "-o", dir+"/")
	if code != 0 || out != "" || !strings.Contains(errOut, "warning: -o DIR is deprecated") {
		t.Fatalf("-o DIR/: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "nginx.conf")); err != nil {
		t.Error(err)
	}
	other := t.TempDir()
	code, out, errOut = runCmd(t, "", "render", "-f", "../../examples", "-d", other, "-o", "json")
	if code != 0 || !strings.HasPrefix(out, "{") || strings.Contains(errOut, "deprecated") {
		t.Fatalf("-d DIR -o json: exit %d, stderr %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(other, "backends.json")); err != nil {
		t.Error(err)
	}
}

// The example files concatenate: cat examples/*.yaml | render -f - reads
// what render -f examples/ reads.
func TestRenderConcatenatedExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	var all bytes.Buffer
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	code, out, errOut := runCmd(t, all.String(), "render", "-f", "-")
	_, want, _ := runCmd(t, "", "render", "-f", "../../examples")
	if code != 0 || out != want {
		t.Errorf("cat examples/*.yaml | render -f -: exit %d: %s", code, errOut)
	}
	// Two objects glued without "---": the error says what to do.
	glued := "apiVersion: v1\nkind: Service\nmetadata: {name: a}\napiVersion: v1\nkind: Service\nmetadata: {name: b}\n"
	code, _, errOut = runCmd(t, glued, "render", "-f", "-")
	if code != exitFailure || !strings.Contains(errOut, `separate documents with a line "---"`) {
		t.Errorf("glued objects: exit %d, stderr %s", code, errOut)
	}
}

// lint --color: problems red, input left out yellow, the summary plain;
// never (and auto off a terminal) no escape at all.
func TestLintColor(t *testing.T) {
	input := badAnnotationIngress + "---\n" + strings.NewReplacer("name: web\n", "name: other\n", "ingressClassName: nginx", "ingressClassName: traefik").Replace(badAnnotationIngress)
	code, out, errOut := runCmd(t, input, "lint", "-f", "-", "--color", "always")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != exitVerdict || len(lines) != 4 {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	for _, l := range lines[:3] {
		color := ansiRed
		if strings.Contains(l, "skipped:") {
			color = ansiYellow
		}
		if !strings.HasPrefix(l, color+"ingress default/") || !strings.HasSuffix(l, ansiReset) {
			t.Errorf("problem line %q: want it in %q", l, color)
		}
	}
	if !strings.Contains(out, ansiYellow) || strings.Contains(lines[3], "\x1b") {
		t.Errorf("no yellow line, or a coloured summary: %q", out)
	}
	for _, mode := range []string{"never", "auto"} {
		if _, out, _ := runCmd(t, input, "lint", "-f", "-", "--color", mode); strings.Contains(out, "\x1b") {
			t.Errorf("--color %s: %q", mode, out)
		}
	}
	if code, _, errOut := runCmd(t, input, "lint", "-f", "-", "--color", "sometimes"); code != exitFailure || !strings.Contains(errOut, "--color must be auto, always or never") {
		t.Errorf("--color sometimes: exit %d, %q", code, errOut)
	}
}

func TestLint(t *testing.T) {
	code, out, _ := runCmd(t, badAnnotationIngress, "lint", "-f", "-")
	if code != exitVerdict || !strings.Contains(out, "ingress default/web: metadata.annotations[nginx.ingress.kubernetes.io/proxy-body-size]") ||
		!strings.Contains(out, "2 problem(s)") {
		t.Errorf("lint with a problem: exit %d, stdout %q", code, out)
	}
	if code, out, errOut := runCmd(t, "", "lint", "-f", "../../examples"); code != 0 || !strings.Contains(out, "0 problem(s)") {
		t.Errorf("lint of the examples: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut := runCmd(t, badAnnotationIngress, "lint", "-f", "-", "-o", "json")
	var problems []renderedProblem
	if err := json.Unmarshal([]byte(out), &problems); code != exitVerdict || err != nil || len(problems) != 2 || problems[0].Name != "web" || !strings.Contains(errOut, "2 problem(s)") {
		t.Errorf("lint -o json: exit %d, %v, %+v, stderr %q", code, err, problems, errOut)
	}
	code, out, errOut = runCmd(t, badAnnotationIngress, "lint", "-f", "-", "-o", `jsonpath={range .items[*]}{.name} {.field}{"\n"}{end}`)
	if want := "web metadata.annotations[nginx.ingress.kubernetes.io/proxy-body-size]\nweb spec.rules[0].http.paths[0].backend.service\n"; code != exitVerdict || out != want || !strings.Contains(errOut, "2 problem(s)") {
		t.Errorf("lint -o jsonpath: exit %d, stdout %q, want %q; stderr %q", code, out, want, errOut)
	}
	code, out, _ = runCmd(t, badAnnotationIngress, "lint", "-f", "-", "-o", "custom-columns=NAME:.name,SKIPPED:.skipped", "--no-headers")
	if code != exitVerdict || out != "web   <none>\nweb   <none>\n" {
		t.Errorf("lint -o custom-columns: exit %d, stdout %q", code, out)
	}
	if code, out, errOut := runCmd(t, badAnnotationIngress, "lint", "-f", "-", "-o", "xml"); code != exitFailure || out != "" || !strings.Contains(errOut, `--output must be one of json, github, sarif, custom-columns`) {
		t.Errorf("lint -o xml: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = runCmd(t, badAnnotationIngress, "lint", "-f", "-", "-o", "github")
	if code != exitVerdict || !strings.HasPrefix(out, "::error title=ingress default/web::ingress default/web%3A") && !strings.HasPrefix(out, "::error title=ingress default/web::ingress default/web: ") {
		t.Errorf("lint -o github: exit %d, %q", code, out)
	}
}

// ingress-nginx's plugin verbs answer with what to use (exit 3), whatever
// their flags.
func TestIngressNginxPluginVerbs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"logs", "-n", "ingress-nginx", "--follow"}, "kubectl logs -n kubectl-ingress deploy/kubectl-ingress-controller"},
		{[]string{"exec", "--", "ls"}, "kubectl exec -it"},
		{[]string{"ssh"}, "-- /bin/sh"},
		{[]string{"info"}, "kubectl get service"},
		{[]string{"general"}, "/configuration/general"},
	} {
		code, out, errOut := runCmd(t, "", tc.args...)
		if code != exitFailure || out != "" || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "ingress-nginx's kubectl plugin") {
			t.Errorf("%q: exit %d, stderr %q; want 3 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// The verbs that ask a controller pod need a kubeconfig: without one they
// say so, never asking client-go's fallback http://localhost:8080.
func TestPodVerbsWithoutKubeconfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", filepath.Join(home, "none"))
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	for _, args := range [][]string{{"certs", "--host", "a.example.com"}, {"backends"}, {"conf"}, {"lint"}, {"ingresses"}} {
		code, out, errOut := runCmd(t, "", args...)
		if code != exitFailure || out != "" || !strings.Contains(errOut, "no kubeconfig") || strings.Contains(errOut, "dial tcp") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// ingress-nginx's controller flags: mapped, ignored with a warning, or
// refused with the reason; never a bare "unknown flag".
func TestControllerIngressNginxFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--health-check-path=/alive"}, "--health-check-path=/alive is not accepted: /healthz and /readyz"},
		{[]string{"--disable-svc-external-name"}, "--disable-svc-external-name=true is not accepted"},
		{[]string{"--ingress-class-by-name"}, "--ingress-class-by-name=true is not accepted"},
		{[]string{"--watch-namespace-selector=team=a"}, "not implemented: --watch-namespace"},
		{[]string{"--annotations-prefix=custom.io"}, "always nginx.ingress.kubernetes.io"},
		{[]string{"--disable-leader-election=maybe"}, "--disable-leader-election must be true or false"},
		{[]string{"--healthz-port=0"}, "--healthz-port must be a port"},
	} {
		code, _, errOut := runCmd(t, "", append([]string{"controller", "--from-files", dir}, tc.args...)...)
		if code != exitFailure || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 3 and %q", tc.args, code, errOut, tc.want)
		}
	}
	// The flags the Helm chart emits get through Complete: mapped or a
	// warning, and the harmless values say nothing.
	var warn bytes.Buffer
	o := NewControllerOptions(ioStreams(&warn))
	cmd := newCmdController(o)
	if err := cmd.ParseFlags([]string{"--from-files", dir, "--disable-leader-election", "--enable-metrics=false", "--enable-annotation-validation=true",
		"--healthz-host=127.0.0.2", "--healthz-port=10299", "--status-port=10299", "--health-check-path=/healthz", "--election-id=x", "--apiserver-host=https://192.0.2.1:6443"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Complete(cmd); err != nil {
		t.Fatal(err)
	}
	if o.HealthAddr != "127.0.0.2:10299" || o.MetricsAddr != "127.0.0.2:10299" || o.Render.StatusAddress != "127.0.0.1:10299" || *o.ConfigFlags.APIServer != "https://192.0.2.1:6443" {
		t.Errorf("mapped: health %q metrics %q status %q server %q", o.HealthAddr, o.MetricsAddr, o.Render.StatusAddress, *o.ConfigFlags.APIServer)
	}
	w := warn.String()
	if !strings.Contains(w, "warning: ingress-nginx's flag --disable-leader-election=true is ignored") || !strings.Contains(w, "--enable-metrics=false is ignored") ||
		strings.Contains(w, "enable-annotation-validation") || strings.Contains(w, "health-check-path") {
		t.Errorf("warnings: %s", w)
	}
	// A flag of ours wins over ingress-nginx's for the same thing.
	o = NewControllerOptions(ioStreams(&warn))
	cmd = newCmdController(o)
	if err := cmd.ParseFlags([]string{"--health-addr=:9000", "--healthz-port=10299"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Complete(cmd); err != nil || o.HealthAddr != ":9000" || o.MetricsAddr != ":10299" {
		t.Errorf("--health-addr and --healthz-port: %v, health %q metrics %q", err, o.HealthAddr, o.MetricsAddr)
	}
	code, out, _ := runCmd(t, "", "controller", "--version")
	if code != 0 || !strings.HasPrefix(out, "kubectl-ingress ") {
		t.Errorf("controller --version: exit %d, %q", code, out)
	}
}

// docs/migrating.md's table of ingress-nginx's flags is compatFlagsMarkdown.
func TestMigratingFlagTable(t *testing.T) {
	const path = "../../docs/migrating.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	begin := []byte("<!-- BEGIN generated by cmd/kubectl-ingress (go test ./cmd/kubectl-ingress -run TestMigratingFlagTable -update) -->\n")
	end := []byte("<!-- END generated -->")
	i, j := bytes.Index(doc, begin), bytes.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the generated markers", path)
	}
	want := compatFlagsMarkdown()
	if string(doc[i+len(begin):j]) == want {
		return
	}
	if !*update {
		t.Fatalf("%s: the table of ingress-nginx's flags differs from the controller's list; run with -update", path)
	}
	out := append(append(append([]byte{}, doc[:i+len(begin)]...), want...), doc[j:]...)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestColorWanted(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	var buf bytes.Buffer
	if !colorWanted("always", &buf, env(nil)) || colorWanted("never", &buf, env(nil)) || colorWanted("auto", &buf, env(nil)) {
		t.Error("always/never/auto on a buffer")
	}
	if plainTerminalOK(env(map[string]string{"NO_COLOR": "1"})) || plainTerminalOK(env(map[string]string{"TERM": "dumb"})) || !plainTerminalOK(env(map[string]string{"TERM": "xterm"})) {
		t.Error("NO_COLOR / TERM=dumb")
	}
}

func TestProgressLine(t *testing.T) {
	var buf syncBuffer
	stop := progress(&buf, "nginx -t: checking", 10*time.Millisecond, 10*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(buf.String(), "nginx -t: checking… ") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	got := buf.String()
	if !regexp.MustCompile(`^\rnginx -t: checking… \d+ s`).MatchString(got) || !strings.HasSuffix(got, "\r") {
		t.Errorf("progress output %q", got)
	}
	// Quick work writes nothing.
	var quiet syncBuffer
	progress(&quiet, "x", time.Hour, time.Second)()
	if quiet.String() != "" {
		t.Errorf("quick work wrote %q", quiet.String())
	}
	// Not a terminal: nothing.
	var notTTY bytes.Buffer
	startProgress(&notTTY, "x")()
	if notTTY.Len() != 0 {
		t.Error("progress on a non-terminal")
	}
}

// The built binary exits 3 on a bad flag, as a CI job sees it.
func TestBinaryExitStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "kubectl-ingress")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"diff", "--bogus"}, {"diff", "x"}, {"render", "--http-port=abc", "-f", "../../examples"}} {
		err := exec.Command(bin, args...).Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != exitFailure {
			t.Errorf("%q: %v, want exit 3", args, err)
		}
	}
	cmd := exec.Command(bin, "render", "-f", "-")
	cmd.Stdin = strings.NewReader("")
	if err := cmd.Run(); err == nil {
		t.Error("empty stdin: exit 0")
	}
}

// ioStreams has w as both stdout and stderr.
func ioStreams(w *bytes.Buffer) genericiooptions.IOStreams {
	return genericiooptions.IOStreams{In: strings.NewReader(""), Out: w, ErrOut: w}
}

// syncBuffer is a bytes.Buffer safe for a writer goroutine and a reader.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestExplain(t *testing.T) {
	code, out, _ := runCmd(t, "", "explain", "nginx.ingress.kubernetes.io/proxy-body-size")
	if code != 0 || !strings.Contains(out, "ANNOTATION nginx.ingress.kubernetes.io/proxy-body-size (supported)") || strings.Contains(out, "CONFIGMAP") {
		t.Errorf("explain with the prefix: only the annotation; exit %d:\n%s", code, out)
	}
	code, out, _ = runCmd(t, "", "explain", "proxy-body-size")
	if code != 0 || !strings.Contains(out, "ANNOTATION nginx.ingress.kubernetes.io/proxy-body-size (supported)") ||
		!strings.Contains(out, "CONFIGMAP KEY proxy-body-size (supported)\n  Value:   nginx size") || !strings.Contains(out, "Default: 1m") {
		t.Errorf("explain proxy-body-size: exit %d:\n%s", code, out)
	}
	code, out, _ = runCmd(t, "", "explain", "auth-snippet")
	if code != 0 || !strings.Contains(out, "(not supported)") || !strings.Contains(out, "snippet annotations other than configuration-snippet and server-snippet are not supported") {
		t.Errorf("explain auth-snippet: exit %d:\n%s", code, out)
	}
	code, out, _ = runCmd(t, "", "explain", "server-snippet")
	if code != 0 || !strings.Contains(out, "ANNOTATION nginx.ingress.kubernetes.io/server-snippet (supported)") || !strings.Contains(out, "allowlist") {
		t.Errorf("explain server-snippet: exit %d:\n%s", code, out)
	}
	code, out, _ = runCmd(t, "", "explain", "canary-weight", "-o", "json")
	var got []explained
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got) != 1 || !got[0].CanaryOnly || got[0].Default != "0" {
		t.Errorf("explain -o json: exit %d, %v, %+v", code, err, got)
	}
	code, _, errOut := runCmd(t, "", "explain", "proxy-body-sise")
	if code != exitFailure || !strings.Contains(errOut, "did you mean proxy-body-size?") {
		t.Errorf("explain a typo: exit %d, %q", code, errOut)
	}
	if code, _, _ := runCmd(t, "", "explain"); code != exitFailure {
		t.Errorf("explain without a name: exit %d", code)
	}
}

// A flag of ingress-nginx that the controller implements itself is left
// to it: no redefinition, no warning.
func TestCompatFlagsYieldToOurs(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	own := fs.Bool("enable-metrics", true, "ours")
	var c compatFlags
	c.AddFlags(fs)
	if err := fs.Parse([]string{"--enable-metrics=false", "--sync-period=10m"}); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	if err := c.apply(&warn, flagSetTarget(fs)); err != nil {
		t.Fatal(err)
	}
	if *own || strings.Contains(warn.String(), "enable-metrics") || !strings.Contains(warn.String(), "--sync-period=10m is ignored") {
		t.Errorf("own flag %v, warnings %q", *own, warn.String())
	}
}
