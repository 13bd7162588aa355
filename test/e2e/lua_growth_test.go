package e2e

// Payloads that outgrow their shared dict: the controller sizes the dicts
// from the payloads and reloads nginx with larger ones, instead of Lua
// answering 413 to every push after the first (issue 11: 36 MB of
// backends in the 64 MB configuration_data).

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
)

// bigService is a Service with ports ports (80, 81, …), each a backend of
// an Ingress path of host big.example.com, and EndpointSlices of
// endpoints IPv6 addresses, written out in full: about 69 bytes of
// backends payload per endpoint and port. The slices are JSON documents,
// which the manifest reader decodes without the YAML step.
func bigService(ports, endpoints int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Service\nmetadata: {name: big, namespace: e2e}\nspec:\n  ports:\n")
	for p := range ports {
		fmt.Fprintf(&b, "  - {name: p%d, port: %d, targetPort: %d}\n", p, 80+p, 9000+p)
	}
	var slicePorts []string
	for p := range ports {
		slicePorts = append(slicePorts, fmt.Sprintf(`{"name":"p%d","port":%d}`, p, 9000+p))
	}
	const perSlice = 10000
	for first := 0; first < endpoints; first += perSlice {
		fmt.Fprintf(&b, "---\n"+`{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"big-%d","namespace":"e2e","labels":{"kubernetes.io/service-name":"big"}},"addressType":"IPv6","ports":[%s],"endpoints":[`,
			first/perSlice, strings.Join(slicePorts, ","))
		for i := first; i < min(first+perSlice, endpoints); i++ {
			if i > first {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"addresses":["fd00:0000:0000:0000:0000:0000:%04x:%04x"]}`, i>>16, i&0xffff)
		}
		b.WriteString("]}\n")
	}
	b.WriteString("---\n")
	var paths []string
	for p := range ports {
		paths = append(paths, fmt.Sprintf("      - {path: /p%d, pathType: Prefix, backend: {service: {name: big, port: {number: %d}}}}", p, 80+p))
	}
	fmt.Fprintf(&b, "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: big, namespace: e2e, creationTimestamp: \"2026-01-01T00:00:00Z\"}\n"+
		"spec:\n  ingressClassName: nginx\n  rules:\n  - host: big.example.com\n    http:\n      paths:\n%s\n", strings.Join(paths, "\n"))
	return b.String()
}

// TestFilesControllerBackendsOutgrowTheDict: ~60 MB of backends arrive;
// the controller reloads nginx with a larger configuration_data (a plan
// reason says so), and an endpoint change of another tenant is served
// afterwards: no push is refused.
func TestFilesControllerBackendsOutgrowTheDict(t *testing.T) {
	if testing.Short() {
		t.Skip("pushes 60 MB payloads")
	}
	alpha, beta := namedBackend(t, "alpha"), namedBackend(t, "beta")
	fc := startFilesController(t, map[string]string{
		"class.yaml":   "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
		"web.yaml":     serviceYAML("web", alpha),
		"ingress.yaml": filesIngress("shop", "shop.example.com", nil, "/", "web"),
	})
	fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/", 200, "alpha /")
	conf, err := os.ReadFile(fc.inst.ConfPath())
	if err != nil {
		t.Fatal(err)
	}
	if got := luaapi.DictSizesOf(conf); got != luaapi.DefaultDictSizes() {
		t.Fatalf("dicts at the start: %+v, want the defaults", got)
	}

	// 15 backends of 58,000 endpoints: about 60 MB of backends.
	start := time.Now()
	fc.write(t, "big.yaml", bigService(15, 58000))
	// The second reload (the first is the start) is the one of big.yaml.
	waitFor(t, 3*time.Minute, "the reload with big.yaml", func() bool { return fc.c.Stats().Reloads >= 2 })
	fc.settle(t)
	grown := luaapi.DictSizesOf(mustRead(t, fc.inst.ConfPath()))
	if grown.ConfigurationData <= luaapi.DefaultDictSizes().ConfigurationData {
		t.Fatalf("configuration_data of %d MiB, want it larger than the default", grown.ConfigurationData>>20)
	}
	backends, err := luaapi.NewClient(fc.statusURL(t), &http.Client{Timeout: time.Minute}).GetBackends(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for _, b := range backends {
		if strings.HasPrefix(b.Name, "e2e-big-") {
			size += len(b.Endpoints)
		}
	}
	if size != 15*58000 {
		t.Errorf("nginx holds %d endpoints of big, want %d", size, 15*58000)
	}
	t.Logf("configuration_data %d MiB for %d backends, %v after the edit", grown.ConfigurationData>>20, len(backends), time.Since(start).Round(time.Millisecond))
	if !strings.Contains(fc.logs.String(), "lua_shared_dict configuration_data resized from 64 MiB to") {
		t.Errorf("no plan reason names the resized dict")
	}
	fc.eventuallyServes(t, 10*time.Second, "shop.example.com", "/", 200, "alpha /")

	// Another tenant's rollout: its new endpoint serves, twice over (each
	// push replaces 60 MB).
	for i, port := range []int{beta, alpha} {
		name := map[int]string{alpha: "alpha", beta: "beta"}[port]
		start := time.Now()
		fc.write(t, "web.yaml", serviceYAML("web", port))
		fc.eventuallyServes(t, time.Minute, "shop.example.com", "/", 200, name+" /")
		t.Logf("endpoint change %d served %v after the edit", i+1, time.Since(start).Round(time.Millisecond))
	}
	st := fc.settle(t)
	if st.DynamicErrors != 0 || st.ReloadErrors != 0 {
		t.Errorf("stats %+v: a push or reload failed", st)
	}
	// Every POST attempt (retries too) is timed with its result: none
	// failed. A 413 is named by the push error's status, not by "413"
	// anywhere in the log (a timestamp, a count, an address has one).
	srv := httptest.NewServer(fc.c.Handler())
	defer srv.Close()
	text := scrape(t, srv.URL)
	for _, ep := range []string{"backends", "servers"} {
		series := fmt.Sprintf(`kubectl_ingress_lua_push_duration_seconds_count{endpoint=%q,result="error"}`, ep)
		if n := metricValue(t, text, series); n > 0 {
			t.Errorf("%s = %v, want no failed push", series, n)
		}
	}
	tooLarge := (&luaapi.StatusError{Code: http.StatusRequestEntityTooLarge}).Error()
	if lines := grepLines(fc.logs.String(), tooLarge); lines != "" {
		t.Errorf("a push got %q:\n%s", tooLarge, lines)
	}
	if now := luaapi.DictSizesOf(mustRead(t, fc.inst.ConfPath())); now != grown {
		t.Errorf("dicts moved again after the endpoint changes: %+v, then %+v", grown, now)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// statusURL is the base URL of the status server of the controller's
// nginx, read from its nginx.conf.
func (rc *runningController) statusURL(t *testing.T) string {
	t.Helper()
	conf := string(mustRead(t, rc.inst.ConfPath()))
	i := strings.Index(conf, "# status server")
	if i < 0 {
		t.Fatal("no status server in nginx.conf")
	}
	rest := conf[i:]
	j := strings.Index(rest, "listen ")
	if j < 0 {
		t.Fatal("no listen line in the status server")
	}
	addr := strings.Fields(rest[j+len("listen "):])[0]
	return "http://" + strings.Trim(strings.TrimSuffix(addr, ";"), `"`)
}

// TestCertificatesOutgrowTheDict: 9,000 certificates of a page each do
// not fit in the default 32 MB certificate_data (413); in a dict sized by
// luaapi.SizeDicts they do, and a later rotation of one of them is served.
func TestCertificatesOutgrowTheDict(t *testing.T) {
	if testing.Short() {
		t.Skip("pushes 30 MB payloads")
	}
	// Many names: each PEM takes a page of the dict.
	var names []string
	for i := range 40 {
		names = append(names, fmt.Sprintf("name-%02d.a-long-enough-domain-name.example.com", i))
	}
	crt, key, err := nginx.SelfSignedCertificate("cert", names...)
	if err != nil {
		t.Fatal(err)
	}
	pem := string(crt) + string(key)
	if len(pem) < 2100 || len(pem) > 4000 {
		t.Fatalf("PEM of %d bytes, want one page", len(pem))
	}
	servers := luaapi.Servers{Servers: map[string]string{}, Certificates: map[string]string{}}
	for i := range 9000 {
		id := fmt.Sprintf("ns/cert-%04d", i)
		servers.Servers[fmt.Sprintf("h%04d.example.com", i)] = id
		servers.Certificates[id] = pem
	}
	need, err := luaapi.Needs(nil, servers)
	if err != nil {
		t.Fatal(err)
	}
	sized := luaapi.SizeDicts(need, luaapi.DefaultDictSizes())
	if sized.CertificateData <= luaapi.DefaultDictSizes().CertificateData {
		t.Fatalf("certificate_data sized %d for %d bytes needed, want more than the default", sized.CertificateData, need.CertificateData)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	lua := func(n *liveNginx) *luaapi.Client {
		return luaapi.NewClient(n.statusURL, &http.Client{Timeout: time.Minute})
	}
	small := startNginxWith(t, "", nginxOptions{})
	if err := lua(small).PostServers(ctx, servers); !luaapi.IsStatus(err, http.StatusRequestEntityTooLarge) {
		t.Errorf("9,000 certificates in the default dict: %v, want 413", err)
	}

	big := startNginxWith(t, "", nginxOptions{editConf: func(conf string) string {
		return strings.Replace(conf, "lua_shared_dict certificate_data 32m;",
			"lua_shared_dict certificate_data "+strconv.FormatInt(sized.CertificateData>>20, 10)+"m;", 1)
	}})
	start := time.Now()
	if err := lua(big).PostServers(ctx, servers); err != nil {
		t.Fatalf("9,000 certificates in a dict of %d MiB: %v", sized.CertificateData>>20, err)
	}
	t.Logf("9,000 new certificates posted in %v", time.Since(start).Round(time.Millisecond))
	rotated, rkey, err := nginx.SelfSignedCertificate("rotated", "h4500.example.com")
	if err != nil {
		t.Fatal(err)
	}
	servers.Certificates["ns/cert-4500"] = string(rotated) + string(rkey)
	for range 3 { // no 413 on the pushes after the first
		start := time.Now()
		if err := lua(big).PostServers(ctx, servers); err != nil {
			t.Fatalf("push after a rotation: %v", err)
		}
		t.Logf("push with one rotated certificate: %v", time.Since(start).Round(time.Millisecond))
	}
	for host, want := range map[string]string{"h4500.example.com": "rotated", "h0001.example.com": "cert"} {
		if cn := handshake(t, big.httpsPort, host); cn != want {
			t.Errorf("SNI %s: served %q, want %q", host, cn, want)
		}
	}
}

// handshake returns the common name of the certificate served for SNI
// serverName.
func handshake(t *testing.T, port int, serverName string) string {
	t.Helper()
	d := &net.Dialer{Timeout: 5 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", "127.0.0.1:"+strconv.Itoa(port), &tls.Config{ServerName: serverName, InsecureSkipVerify: true})
	if err != nil {
		t.Fatalf("TLS with SNI %s: %v", serverName, err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].Subject.CommonName
}
