package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/internal/testcerts"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
)

// routingIngress is an Ingress of host with one Prefix path to the
// Service web; extra are more annotations (YAML lines under annotations).
func routingIngress(name, host string, extra ...string) string {
	annotations := "{}"
	if len(extra) > 0 {
		annotations = "\n" + "    " + strings.Join(extra, "\n    ")
	}
	return fmt.Sprintf(`---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: %s
  namespace: default
  annotations: %s
spec:
  ingressClassName: nginx
  rules:
  - host: %s
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
`, name, annotations, host)
}

const routingBase = `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  ports: [{name: http, port: 80, targetPort: 8080}]
`

// writeManifests writes content to dir/in.yaml and returns dir.
func writeManifests(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.yaml"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRenderRoutingLua: with --routing=lua, render writes routes.json
// with one entry per Lua-routed host, nginx.conf names none of them and
// stays the same bytes when a host is added, and a host with a setting
// the router cannot apply keeps a server block, with a notice saying why.
func TestRenderRoutingLua(t *testing.T) {
	two := routingBase + routingIngress("a", "a.example.com") + routingIngress("b", "b.example.com")
	three := two + routingIngress("c", "c.example.com")
	classic := three + routingIngress("d", "d.example.com", `nginx.ingress.kubernetes.io/server-snippet: "add_header X-Classic 1;"`)
	out := map[string]string{}
	for name, in := range map[string]string{"two": two, "three": three, "classic": classic} {
		dir := t.TempDir()
		code, _, errOut := runCmd(t, "", "render", "-f", writeManifests(t, in), "--routing=lua", "-d", dir)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		for _, f := range []string{"nginx.conf", "routes.json", "problems.txt"} {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			out[name+"/"+f] = string(data)
		}
	}
	var routes []luaapi.HostRoutes
	if err := json.Unmarshal([]byte(out["three/routes.json"]), &routes); err != nil {
		t.Fatalf("routes.json: %v", err)
	}
	var hosts []string
	for _, h := range routes {
		hosts = append(hosts, h.Host)
		if h.Version == "" || len(h.Paths) == 0 {
			t.Errorf("host %s: no version or no paths: %+v", h.Host, h)
		}
	}
	if got := strings.Join(hosts, " "); got != "_ a.example.com b.example.com c.example.com" {
		t.Errorf("routes.json hosts %q", got)
	}
	if out["two/nginx.conf"] != out["three/nginx.conf"] {
		t.Error("nginx.conf changed when a Lua-routed host was added")
	}
	if strings.Contains(out["three/nginx.conf"], "a.example.com") {
		t.Error("nginx.conf names a Lua-routed host")
	}
	if !strings.Contains(out["classic/nginx.conf"], `server_name "d.example.com"`) || strings.Contains(out["classic/routes.json"], `"d.example.com"`) {
		t.Error("d.example.com (a server-snippet's add_header) should have a classic server block and no route entry")
	}
	if want := "notice: host d.example.com keeps a classic server block (--routing=lua): server-snippet (add_header) on Ingress default/d"; !strings.Contains(out["classic/problems.txt"], want) {
		t.Errorf("problems.txt lacks %q:\n%s", want, out["classic/problems.txt"])
	}
}

// TestRenderRoutingNginxHasNoRoutes: the classic mode writes no
// routes.json, and a render into the same directory removes the one an
// earlier lua render left.
func TestRenderRoutingNginxHasNoRoutes(t *testing.T) {
	in := writeManifests(t, routingBase+routingIngress("a", "a.example.com"))
	dir := t.TempDir()
	if code, _, errOut := runCmd(t, "", "render", "-f", in, "--routing=lua", "-d", dir); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := runCmd(t, "", "render", "-f", in, "--routing=nginx", "-d", dir); code != 0 {
		t.Fatal(errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "routes.json")); !os.IsNotExist(err) {
		t.Errorf("routes.json of the lua render is still there: %v", err)
	}
}

// TestDiffRoutingLua: a new host is a reload in classic mode and a dynamic
// change in lua mode, which names the host pushed; a change of a classic
// host still reloads.
func TestDiffRoutingLua(t *testing.T) {
	before := writeManifests(t, routingBase+routingIngress("a", "a.example.com"))
	added := writeManifests(t, routingBase+routingIngress("a", "a.example.com")+routingIngress("b", "b.example.com"))
	corsAdded := writeManifests(t, routingBase+routingIngress("a", "a.example.com", `nginx.ingress.kubernetes.io/server-snippet: "add_header X-Classic 1;"`))
	aliasAdded := writeManifests(t, routingBase+routingIngress("a", "a.example.com", `nginx.ingress.kubernetes.io/server-alias: "www.a.example.com"`))
	cases := []struct {
		name, to, routing string
		code              int
		want              []string
	}{
		{"new host, classic", added, "nginx", diffExitReload, []string{"server b.example.com added"}},
		{"new host, lua", added, "lua", diffExitDynamic, []string{"Verdict: dynamic only", "host b.example.com: routes added, pushed to the Lua router", "host pushed   b.example.com"}},
		{"server-alias, classic", aliasAdded, "nginx", diffExitReload, []string{"server-alias of a.example.com changed"}},
		{"server-alias, lua", aliasAdded, "lua", diffExitDynamic, []string{"Verdict: dynamic only", "ingress default/a: host www.a.example.com: routes added, pushed to the Lua router"}},
		{"host leaves the router for a server block, lua", corsAdded, "lua", diffExitReload, []string{"Verdict: reload required", "host deleted  a.example.com", "a.example.com: server-snippet (add_header) on Ingress default/a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, "", "diff", "--from", before, "--to", tc.to, "--routing", tc.routing)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	// custom-http-errors: a new code set is the router's named location
	// (a reload, named); a second host with the same set is dynamic
	errorsA := routingIngress("a", "a.example.com", `nginx.ingress.kubernetes.io/custom-http-errors: "404,503"`)
	withA := writeManifests(t, routingBase+errorsA)
	withAB := writeManifests(t, routingBase+errorsA+routingIngress("b", "b.example.com", `nginx.ingress.kubernetes.io/custom-http-errors: "503,404"`))
	for _, tc := range []struct {
		name, from, to string
		code           int
		want           string
	}{
		{"a new set of error pages", before, withA, diffExitReload,
			"reload   ingress default/a: Lua router: location @kubectl_ingress_errors_i_404_503 added (custom-http-errors 404,503;"},
		{"a set nginx.conf has", withA, withAB, diffExitDynamic, "dynamic  ingress default/b: host b.example.com: routes added, pushed to the Lua router"},
		{"the last route of a set goes", withA, before, diffExitReload,
			"reload   ingress default/a: Lua router: location @kubectl_ingress_errors_i_404_503 removed"},
	} {
		code, out, errOut := runCmd(t, "", "diff", "--from", tc.from, "--to", tc.to, "--color", "never")
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%s: exit %d, want %d and %q:\n%s%s", tc.name, code, tc.code, tc.want, out, errOut)
		}
	}

	// a client CA rotated: the Lua router's handshake reads the new file,
	// nothing reloads (a classic server block would)
	caSecret := func(ca *testcerts.CA) string {
		return "---\napiVersion: v1\nkind: Secret\nmetadata: {name: client-ca, namespace: default}\ndata:\n  ca.crt: " +
			base64.StdEncoding.EncodeToString(ca.PEM) + "\n"
	}
	mtls := routingIngress("a", "a.example.com", `nginx.ingress.kubernetes.io/auth-tls-secret: "client-ca"`)
	caOld := writeManifests(t, routingBase+caSecret(testcerts.NewCA(t))+mtls)
	caNew := writeManifests(t, routingBase+caSecret(testcerts.NewCA(t))+mtls)
	for routing, want := range map[string]struct {
		code int
		text string
	}{
		"lua":   {diffExitDynamic, "(the Lua router reads it at the TLS handshake): written before the route that names it"},
		"nginx": {diffExitReload, "(nginx reads it at load: a new content is a new file and a reload)"},
	} {
		code, out, errOut := runCmd(t, "", "diff", "--from", caOld, "--to", caNew, "--routing", routing, "--color", "never")
		if code != want.code || !strings.Contains(out, want.text) {
			t.Errorf("client CA rotated, %s: exit %d, want %d and %q:\n%s%s", routing, code, want.code, want.text, out, errOut)
		}
	}

	code, out, _ := runCmd(t, "", "diff", "--from", before, "--to", added, "--routing=lua", "-o", "json")
	var report struct {
		Verdict string `json:"verdict"`
		Routes  struct {
			Pushed  []string `json:"pushed"`
			Deleted []string `json:"deleted"`
		} `json:"routes"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil || code != diffExitDynamic {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	if report.Verdict != "dynamic only" || strings.Join(report.Routes.Pushed, ",") != "b.example.com" || len(report.Routes.Deleted) != 0 {
		t.Errorf("json report %+v", report)
	}
}

func TestRoutingFlagUsageError(t *testing.T) {
	for _, cmd := range []string{"render", "diff"} {
		args := []string{cmd, "--routing=fast", "-f", "../../examples"}
		if cmd == "diff" {
			args = []string{cmd, "--routing=fast", "--from", "../../examples", "--to", "../../examples"}
		}
		code, _, errOut := runCmd(t, "", args...)
		if code != 3 || !strings.Contains(errOut, `--routing "fast": want "nginx" or "lua"`) {
			t.Errorf("%s: exit %d: %s", cmd, code, errOut)
		}
	}
}
