package e2e

// The differential test of pkg/trace against a real nginx in classic mode:
// for every render golden case, the model's backends point at loopback
// echo servers that traceAnswer with their index (so the traceAnswer names the
// backend), nginx runs the classic nginx.conf, and a set of requests
// (every host × its paths, near misses, canary headers and cookies, CORS
// preflights) goes through it. What nginx did (the backend that answered
// and the URI it got, or the status and Location) must be what
// trace.Route says. nginx is the oracle.

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/trace"
)

const (
	traceGoldenCases = "../../testdata/render"
	// traceMaxPaths and traceMaxHosts bound the requests of one case.
	traceMaxPaths = 40
	traceMaxHosts = 24
	// traceSenders is how many requests are in flight at once.
	traceSenders = 4
)

func TestTraceDifferential(t *testing.T) {
	nginxtest.Require(t)
	entries, err := os.ReadDir(traceGoldenCases)
	if err != nil {
		t.Fatal(err)
	}
	pool := &traceEchoPool{t: t}
	var total, skipped, conditional atomic.Int64
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			t.Parallel() // two cases at a time on 2 cores (-parallel)
			dir := filepath.Join(traceGoldenCases, name)
			opts, why := traceCaseOptions(dir)
			if why != "" {
				t.Skipf("case %s skipped: %s", name, why)
			}
			res, err := manifest.Read([]string{filepath.Join(dir, "input.yaml")}, manifest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cfg, _ := render.Build(res.Snapshot, opts)
			ports := pool.rewire(cfg)
			authURL := pool.rewireAuth(cfg)
			n := startTraceNginx(t, cfg)
			probes := traceProbes(cfg)
			decisions := make([]trace.Decision, len(probes))
			answers := make([]traceAnswer, len(probes))
			sent := make([]bool, len(probes))
			for i, p := range probes {
				decisions[i] = trace.Route(cfg, p.request(n))
				d := decisions[i]
				// FastCGI or gRPC (the echo would keep nginx waiting), or
				// proxy-ssl-verify (the echo's certificate is no backend's)
				sent[i] = d.Outcome.Kind != trace.OutcomeProxy || (traceEchoSpeaks(traceProtocol(cfg, d)) && !traceVerifiesBackend(d))
			}
			// traceSenders requests at a time, each on its own connection
			work := make(chan int)
			var wg sync.WaitGroup
			for range traceSenders {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range work {
						answers[i] = n.send(t, probes[i], cfg.Global.RealIP.UseProxyProtocol)
					}
				}()
			}
			for i := range probes {
				if sent[i] {
					work <- i
				}
			}
			close(work)
			wg.Wait()
			var bad []string
			for i, p := range probes {
				d, got := decisions[i], answers[i]
				total.Add(1)
				if !sent[i] {
					skipped.Add(1)
					continue
				}
				// the auth service answers 200: what trace leaves to it is
				// settled
				d.Outcome.Unless = slices.DeleteFunc(d.Outcome.Unless, func(u string) bool {
					return strings.Contains(u, "the auth service at "+authURL+" refuses")
				})
				verdict := compareTrace(cfg, d, got, ports)
				switch verdict {
				case "":
				case "skip":
					skipped.Add(1)
				case "conditional":
					conditional.Add(1)
					if testing.Verbose() {
						t.Logf("conditional: %s %s://%s%s %v %v: trace %+v steps %v; nginx %+v", p.method, p.scheme, p.host, p.target, p.headers, p.cookies, d.Outcome, d.Steps, got)
					}
				default:
					bad = append(bad, fmt.Sprintf("%s %s://%s%s %v %v: %s", p.method, p.scheme, p.host, p.target, p.headers, p.cookies, verdict))
				}
			}
			for i, b := range bad {
				if i == 30 {
					t.Errorf("… and %d more", len(bad)-30)
					break
				}
				t.Error(b)
			}
		})
	}
	t.Cleanup(func() {
		t.Logf("%d requests, %d not comparable (FastCGI, gRPC, proxy-ssl-verify), %d conditional (auth, limits, random weight) compared loosely", total.Load(), skipped.Load(), conditional.Load())
	})
}

// traceCaseOptions reads flags.txt of a case as render's flags; a case
// whose flags change what this test can send (stream ports, SSL
// passthrough) is skipped with the reason.
func traceCaseOptions(dir string) (render.Options, string) {
	o := render.DefaultOptions()
	raw, err := os.ReadFile(filepath.Join(dir, "flags.txt"))
	if err != nil {
		return o, ""
	}
	f := strings.Fields(string(raw))
	for i := 0; i < len(f); i++ {
		val := func() string {
			if i+1 < len(f) {
				i++
				return f[i]
			}
			return ""
		}
		switch f[i] {
		case "--configmap":
			o.ConfigMap, o.ConfigMapRequired = val(), true
		case "--allow-cross-namespace-host-sharing":
			o.AllowCrossNamespaceHostSharing = true
		case "--default-backend-service":
			o.DefaultBackendService = val()
		case "--default-ssl-certificate":
			o.DefaultSSLCertificate = val()
		case "--watch-ingress-without-class":
			o.WatchIngressWithoutClass = true
		case "--ingress-class":
			o.IngressClass = val()
		case "--controller-class":
			o.ControllerClass = val()
		default:
			return o, "flags.txt has " + f[i] + " (TCP/UDP services or SSL passthrough: the stream listeners, not HTTP routing)"
		}
	}
	return o, ""
}

// traceEchoPool is a growing set of loopback backends; the i-th answers
// "echo i URI". HTTPS backends get TLS ones.
type traceEchoPool struct {
	t          *testing.T
	mu         sync.Mutex
	plain, tls []int
	auth       int // the port of the auth service
}

func (p *traceEchoPool) port(i int, secure bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	list := &p.plain
	if secure {
		list = &p.tls
	}
	for len(*list) <= i {
		key := strconv.Itoa(len(*list))
		if secure {
			key = "tls" + key
		}
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Connection", "close")
			fmt.Fprintf(w, "echo %s %s", key, r.RequestURI)
		})
		var srv *httptest.Server
		if secure {
			srv = httptest.NewTLSServer(h)
		} else {
			srv = httptest.NewServer(h)
		}
		p.t.Cleanup(srv.Close)
		*list = append(*list, srv.Listener.Addr().(*net.TCPAddr).Port)
	}
	return (*list)[i]
}

// rewire points every backend with endpoints at its own echo server
// (one endpoint, so a canary and its primary are told apart by port) and
// returns the backend of each echo index. Backends without endpoints keep
// none (nginx answers 503).
func (p *traceEchoPool) rewire(c *model.Config) map[string]string {
	names := map[string]string{}
	plain, secure := 0, 0
	tlsBackends := map[string]bool{}
	for i := range c.Servers {
		for _, l := range c.Servers[i].Locations {
			if strings.EqualFold(l.Settings.BackendProtocol, "HTTPS") {
				tlsBackends[l.Backend] = true
			}
		}
	}
	for i := range c.Backends {
		b := &c.Backends[i]
		if len(b.Endpoints) == 0 {
			continue
		}
		isTLS := strings.EqualFold(b.Protocol, "HTTPS") || tlsBackends[b.Name]
		idx := plain
		if isTLS {
			idx, secure = secure, secure+1
			names["tls"+strconv.Itoa(idx)] = b.Name
		} else {
			plain++
			names[strconv.Itoa(idx)] = b.Name
		}
		b.Endpoints = []model.Endpoint{{Address: "127.0.0.1", Port: p.port(idx, isTLS)}}
		b.ExternalName = ""
	}
	return names
}

// rewireAuth points every external authentication (auth-url and
// global-auth-url) at a loopback service that lets every request in,
// and returns its URL.
func (p *traceEchoPool) rewireAuth(c *model.Config) string {
	p.mu.Lock()
	if p.auth == 0 {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		p.t.Cleanup(srv.Close)
		p.auth = srv.Listener.Addr().(*net.TCPAddr).Port
	}
	url := "http://127.0.0.1:" + strconv.Itoa(p.auth) + "/auth"
	p.mu.Unlock()
	point := func(a *model.ExternalAuth) {
		if a != nil && a.URL != "" {
			a.URL, a.Host = url, "127.0.0.1"
		}
	}
	point(&c.Global.GlobalAuth)
	for i := range c.Servers {
		for j := range c.Servers[i].Locations {
			l := &c.Servers[i].Locations[j]
			if l.Settings.ExternalAuth != nil {
				a := *l.Settings.ExternalAuth
				point(&a)
				l.OwnSettings().ExternalAuth = &a // shared settings: a copy
			}
		}
	}
	return url
}

// traceNginx is a started nginx with its ports.
type traceNginx struct {
	httpPort, httpsPort int
}

// startTraceNginx starts nginx (two workers) on loopback with the
// classic nginx.conf of c and pushes its backends and servers, as
// startNginxWith does for manifests. A start that fails (a port that
// freePort gave was taken before nginx bound it: cases run in parallel)
// is tried again on new ports, three times at most.
func startTraceNginx(t *testing.T, c *model.Config) *traceNginx {
	t.Helper()
	var err error
	for range 3 {
		var n *traceNginx
		if n, err = startTraceNginxOnce(t, c); err == nil {
			return n
		}
		t.Logf("nginx did not start, trying new ports: %v", err)
	}
	t.Fatal(err)
	return nil
}

func startTraceNginxOnce(t *testing.T, c *model.Config) (*traceNginx, error) {
	n := &traceNginx{httpPort: freePort(t), httpsPort: freePort(t)}
	statusAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	co := nginxconf.DefaultConfOptions()
	co.ListenAddress = "127.0.0.1"
	co.HTTPPort, co.HTTPSPort, co.StatusAddress = n.httpPort, n.httpsPort, statusAddr
	co.WorkerProcesses = "2"
	co.Routing = e2eRouting(t)
	state, err := ksync.DesiredState(c, co)
	if err != nil {
		t.Fatal(err)
	}
	conf := state.NGINXConf
	inst := nginx.New(filepath.Join(t.TempDir(), "nginx"), nginx.Options{StatusURL: "http://" + statusAddr})
	if err := inst.Layout(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := inst.WriteFiles(ctx, controller.ToNginxFiles(c.Files)); err != nil {
		t.Fatal(err)
	}
	if err := inst.Start(ctx, conf); err != nil {
		return nil, err
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = inst.Stop(ctx)
		checkLuaErrors(t, filepath.Join(inst.Prefix(), "logs", "error.log"))
	})
	lua := luaapi.NewClient("http://"+statusAddr, &http.Client{Timeout: 5 * time.Second})
	postPayloads(t, ctx, lua, c, state.Routes)
	return n, nil
}

// traceProbe is one request of the test.
type traceProbe struct {
	method, scheme, host, target string
	headers                      []trace.Header
	cookies                      []trace.Cookie
}

func (p traceProbe) request(n *traceNginx) trace.Request {
	port := n.httpPort
	if p.scheme == "https" {
		port = n.httpsPort
	}
	return trace.Request{Method: p.method, Scheme: p.scheme, Host: p.host, Port: port, Target: p.target, Headers: p.headers, Cookies: p.cookies}
}

// traceAnswer is what nginx did.
type traceAnswer struct {
	status   int
	location string
	body     string
	err      error
}

// send writes the request as raw bytes (the target exactly as given) on
// a new connection with a deadline, and reads the traceAnswer.
func (n *traceNginx) send(t *testing.T, p traceProbe, proxyProtocol bool) traceAnswer {
	addr := "127.0.0.1:" + strconv.Itoa(n.httpPort)
	if p.scheme == "https" {
		addr = "127.0.0.1:" + strconv.Itoa(n.httpsPort)
	}
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return traceAnswer{err: err}
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if proxyProtocol {
		// use-proxy-protocol: the load balancer's header first
		if _, err := io.WriteString(conn, "PROXY TCP4 127.0.0.1 127.0.0.1 40000 80\r\n"); err != nil {
			return traceAnswer{err: err}
		}
	}
	if p.scheme == "https" {
		sni, _, _ := strings.Cut(p.host, ":")
		tc := tls.Client(conn, &tls.Config{ServerName: strings.ToLower(sni), InsecureSkipVerify: true})
		if err := tc.Handshake(); err != nil {
			return traceAnswer{err: err}
		}
		conn = tc
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", p.method, p.target, p.host)
	for _, h := range p.headers {
		fmt.Fprintf(&b, "%s: %s\r\n", h.Name, h.Value)
	}
	if len(p.cookies) > 0 {
		var cs []string
		for _, c := range p.cookies {
			cs = append(cs, c.Name+"="+c.Value)
		}
		fmt.Fprintf(&b, "Cookie: %s\r\n", strings.Join(cs, "; "))
	}
	b.WriteString("\r\n")
	if _, err := io.WriteString(conn, b.String()); err != nil {
		return traceAnswer{err: err}
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: p.method})
	if err != nil {
		return traceAnswer{err: err}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return traceAnswer{status: resp.StatusCode, location: resp.Header.Get("Location"), body: string(body)}
}

// compareTrace says "" when nginx did what d says, "skip" or
// "conditional" when the request cannot be compared exactly, else what
// differs.
func compareTrace(c *model.Config, d trace.Decision, a traceAnswer, names map[string]string) string {
	if a.err != nil {
		return "no traceAnswer: " + a.err.Error()
	}
	o := d.Outcome
	got := "status " + strconv.Itoa(a.status)
	backend, uri := "", ""
	if rest, ok := strings.CutPrefix(a.body, "echo "); ok && a.status == 200 {
		key, u, _ := strings.Cut(rest, " ")
		backend, uri = names[key], u
		got = "backend " + backend + " URI " + uri
	}
	if a.location != "" {
		got += " Location " + a.location
	}
	if cd := d.Canary; cd != nil && cd.Random && o.Kind == trace.OutcomeProxy && backend != "" && backend != o.Backend {
		// the weight chose: nginx's backend must be the primary or one of
		// its canaries, with the same URI
		b := c.Backend(cd.Primary)
		if b == nil || !slices.Contains(b.AlternativeBackends, backend) || uri != o.UpstreamURI {
			return "trace: " + cd.Primary + " or a canary of it, URI " + o.UpstreamURI + "; nginx: " + got
		}
		return "conditional"
	}
	diff := traceExactDiff(c, d, a, got, backend, uri)
	if diff != "" && diff != "skip" && (len(o.Unless) > 0 || len(d.NotCovered) > 0 || (o.Kind == trace.OutcomeStatus && o.Status == 0)) {
		return "conditional"
	}
	return diff
}

func traceExactDiff(c *model.Config, d trace.Decision, a traceAnswer, got, backend, uri string) string {
	o := d.Outcome
	switch o.Kind {
	case trace.OutcomeProxy:
		if backend != o.Backend {
			return "trace: backend " + o.Backend + " URI " + o.UpstreamURI + "; nginx: " + got
		}
		if uri != o.UpstreamURI {
			return "trace: backend " + o.Backend + " URI " + o.UpstreamURI + "; nginx: " + got
		}
	case trace.OutcomeStatus:
		want := "status " + strconv.Itoa(o.Status)
		if o.Location != "" {
			want += " Location " + o.Location
		}
		if a.status != o.Status {
			return "trace: " + want + "; nginx: " + got
		}
		if o.Location != "" {
			ok := a.location == o.Location
			if o.Absolute {
				ok = strings.HasSuffix(a.location, o.Location) && strings.HasPrefix(a.location, "http")
			}
			if !ok {
				return "trace: " + want + "; nginx: " + got
			}
		}
	}
	return ""
}

// traceVerifiesBackend says whether the location of d checks its
// backend's certificate (proxy-ssl-verify).
func traceVerifiesBackend(d trace.Decision) bool {
	return d.Location != nil && d.Location.Location != nil && d.Location.Location.Settings.ProxySSL != nil && d.Location.Location.Settings.ProxySSL.Verify
}

// traceEchoSpeaks says whether the echo backends speak protocol.
func traceEchoSpeaks(protocol string) bool {
	switch strings.ToUpper(protocol) {
	case "", "HTTP", "HTTPS":
		return true
	}
	return false
}

// traceProtocol is the protocol nginx speaks to the backend of d: its
// location's backend-protocol.
func traceProtocol(c *model.Config, d trace.Decision) string {
	if d.Location != nil && d.Location.Location != nil {
		return d.Location.Location.Settings.BackendProtocol
	}
	if b := c.Backend(d.Outcome.Backend); b != nil {
		return b.Protocol
	}
	return ""
}

// traceProbes are the requests of one case: for every host entry (hosts,
// one- and two-label names for wildcards, aliases, www redirects, an
// unknown host, an upper-case one) its server's paths and their near
// misses (trailing slash added or removed, upper case, an extra segment,
// the parent, a query, merged slashes, dot segments, a percent-encoded
// letter) over http, and over https for TLS hosts; canary headers and
// cookies on the paths of backends with canaries; CORS preflights.
func traceProbes(c *model.Config) []traceProbe {
	var out []traceProbe
	seen := map[string]bool{}
	add := func(p traceProbe) {
		if p.method == "" {
			p.method = "GET"
		}
		key := fmt.Sprint(p)
		if !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	type hostPaths struct {
		hosts []string
		s     *model.Server
	}
	var groups []hostPaths
	var allPaths []string
	for i := range c.Servers {
		s := &c.Servers[i]
		var hosts []string
		for _, name := range append([]string{s.Hostname}, s.Aliases...) {
			switch {
			case name == model.CatchAllHost:
				hosts = append(hosts, "unknown.invalid")
			case strings.HasPrefix(name, "*."):
				rest := name[2:]
				hosts = append(hosts, "one."+rest, "two.labels."+rest, rest)
			default:
				hosts = append(hosts, name, strings.ToUpper(name)+":8080", name+".")
			}
		}
		if len(hosts) > traceMaxHosts {
			hosts = hosts[:traceMaxHosts]
		}
		paths := traceServerPaths(s)
		allPaths = append(allPaths, paths...)
		groups = append(groups, hostPaths{hosts, s})
	}
	for _, g := range groups {
		paths := traceServerPaths(g.s)
		if g.s.Hostname == model.CatchAllHost {
			paths = append(paths, allPaths...)
		}
		paths = traceDedupe(paths, traceMaxPaths)
		for _, h := range g.hosts {
			for _, p := range paths {
				add(traceProbe{scheme: "http", host: h, target: p})
			}
		}
		if g.s.TLS || g.s.CertificateID != "" {
			for _, p := range paths {
				add(traceProbe{scheme: "https", host: g.hosts[0], target: p})
			}
			// a proxy in front says the client used https: honoured only
			// with use-forwarded-headers
			add(traceProbe{scheme: "http", host: g.hosts[0], target: paths[0], headers: []trace.Header{{Name: "X-Forwarded-Proto", Value: "https"}}})
			// and which host it asked for: the HTTPS redirect's host with
			// use-forwarded-headers
			for _, p := range paths[:min(3, len(paths))] {
				add(traceProbe{scheme: "http", host: g.hosts[0], target: p, headers: []trace.Header{{Name: "X-Forwarded-Host", Value: "front.example.com:8443, inner"}}})
			}
		}
		for i := range g.s.Locations {
			l := &g.s.Locations[i]
			host := g.hosts[0]
			target := traceSamplePath(l)
			if b := c.Backend(l.Backend); b != nil {
				for _, alt := range b.AlternativeBackends {
					ab := c.Backend(alt)
					if ab == nil {
						continue
					}
					ts := ab.TrafficShaping
					for _, scheme := range []string{"http", "https"} {
						if scheme == "https" && !g.s.TLS {
							continue
						}
						if ts.Header != "" {
							for _, v := range []string{"always", "never", "other", ts.HeaderValue} {
								if v != "" {
									add(traceProbe{scheme: scheme, host: host, target: target, headers: []trace.Header{{Name: ts.Header, Value: v}}})
								}
							}
						}
						if ts.Cookie != "" {
							for _, v := range []string{"always", "never"} {
								add(traceProbe{scheme: scheme, host: host, target: target, cookies: []trace.Cookie{{Name: ts.Cookie, Value: v}}})
							}
						}
					}
				}
			}
			if cors := l.Settings.CORS; cors != nil {
				origin := "https://origin.example.com"
				if len(cors.AllowOrigins) > 0 && cors.AllowOrigins[0] != "*" {
					origin = strings.Replace(cors.AllowOrigins[0], "*.", "a.", 1)
				}
				for _, o := range []string{origin, "https://other.invalid"} {
					add(traceProbe{method: "OPTIONS", scheme: "http", host: host, target: target, headers: []trace.Header{{Name: "Origin", Value: o}}})
				}
			}
		}
	}
	return out
}

// traceServerPaths are the paths of s and their near misses, and what
// its server-snippet's locations and rewrites match.
func traceServerPaths(s *model.Server) []string {
	out := []string{"/", "/nope/deeper"}
	if sn := s.Snippet; sn != nil {
		for _, l := range sn.Locations {
			p := traceRegexSample(l.Path)
			out = append(out, p, p+"/x", strings.ToUpper(p))
		}
		for _, st := range sn.RewritePhase {
			if st.Rewrite != nil {
				p := traceRegexSample(st.Rewrite.Regex)
				out = append(out, p, p+"/x")
			}
		}
	}
	for i := range s.Locations {
		l := &s.Locations[i]
		if sn := l.Settings.Snippet; sn != nil {
			// a configuration-snippet's rewrites: what they match, with
			// an argument, and with a "+" and an escape in the path (the
			// captures copied into arguments and redirects are escaped)
			for _, st := range sn.RewritePhase {
				if st.Rewrite != nil {
					p := traceRegexSample(st.Rewrite.Regex)
					out = append(out, p, p+"/x?q=1", p+"/a+b%20c?q=1")
				}
			}
		}
		p := traceSamplePath(l)
		trimmed := strings.TrimRight(p, "/")
		out = append(out, p, p+"?q=1", strings.ToUpper(p), trimmed+"/extra", "/"+strings.TrimLeft(trimmed, "/")+"/")
		if trimmed != "" {
			out = append(out, trimmed, "/"+strings.Replace(trimmed[1:], "/", "//", 1), "/x/.."+trimmed)
			if len(trimmed) > 1 {
				out = append(out, "/%"+strconv.FormatInt(int64(trimmed[1]), 16)+trimmed[2:])
			}
			if j := strings.LastIndexByte(trimmed, '/'); j > 0 {
				out = append(out, trimmed[:j], trimmed[:j]+"/", trimmed[:j]+"%2F"+trimmed[j+1:], trimmed[:j]+"/%2e/"+trimmed[j+1:])
			}
		}
	}
	return out
}

// traceSamplePath is a request path that an Ingress path of l matches: the
// path, or for a regex the literal text before its first special
// character.
func traceSamplePath(l *model.Location) string {
	if !l.Regex {
		if !strings.HasPrefix(l.Path, "/") {
			return "/" + l.Path
		}
		return l.Path
	}
	p := l.Path
	if i := strings.IndexAny(p, `.*+?()[]{}|^$\`); i >= 0 {
		p = p[:i]
	}
	if p == "" || !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p
}

// traceRegexSample is a path that a simple regex matches: without its
// anchors and escapes, the first alternative of each group.
func traceRegexSample(re string) string {
	re = strings.TrimSuffix(strings.TrimPrefix(re, "^"), "$")
	var b strings.Builder
	for i := 0; i < len(re); i++ {
		switch c := re[i]; c {
		case '\\':
			if i+1 < len(re) {
				i++
				b.WriteByte(re[i])
			}
		case '(':
			end := strings.IndexByte(re[i:], ')')
			if end < 0 {
				return "/"
			}
			first, _, _ := strings.Cut(re[i+1:i+end], "|")
			b.WriteString(strings.TrimPrefix(first, "?:"))
			i += end
		case '.', '*', '+', '?', '[', ']', '{', '}', '|', '$', '^':
			return traceMustSlash(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return traceMustSlash(b.String())
}

func traceMustSlash(p string) string {
	if !strings.HasPrefix(p, "/") {
		return "/" + p
	}
	return p
}

// traceDedupe keeps the first max distinct values that a client can send (no
// spaces or control bytes), sorted for a stable order.
func traceDedupe(in []string, max int) []string {
	set := map[string]bool{}
	for _, s := range in {
		if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			continue
		}
		set[s] = true
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	if len(out) > max {
		// keep "/" and the shortest ones, which the near misses derive from
		slices.SortStableFunc(out, func(a, b string) int { return len(a) - len(b) })
		out = out[:max]
		sort.Strings(out)
	}
	return out
}
