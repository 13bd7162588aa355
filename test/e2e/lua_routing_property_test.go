package e2e

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// The property test of --routing=lua: random Ingress sets and random
// requests, with a classic nginx of the same manifests as the oracle.
// TestLuaRoutingMatchesClassic and TestTraceDifferential send chosen
// requests to chosen manifests; this one finds the combinations nobody
// chose (overlapping hosts, path types and regexes, rewrites, canaries,
// redirects).

// propertySeedsEnv names the seeds to run instead of the fixed ones:
// "7", "1,5,9" or a range "100-199" (to explore; a failing seed is then
// added to defaultPropertySeeds with its fix).
const propertySeedsEnv = "KUBECTL_INGRESS_PROPERTY_SEEDS"

// defaultPropertySeeds are the seeds CI runs: the same every time, so a
// red run is a difference, never a new random draw.
var defaultPropertySeeds = []uint64{1, 2, 3, 4, 5, 6}

// propertyRequestsPerSeed is how many requests each seed sends to both
// nginx instances.
const propertyRequestsPerSeed = 150

func TestLuaRoutingPropertyMatchesClassic(t *testing.T) {
	seeds := propertySeeds(t)
	ports := map[string]int{}
	for _, name := range propertyBackends {
		ports[name] = uriBackend(t, name)
	}
	kinds := map[string]int{}
	total, luaRouted := 0, 0
	for _, seed := range seeds {
		t.Run("seed="+strconv.FormatUint(seed, 10), func(t *testing.T) {
			g := &propertyGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
			manifests := g.manifests(ports)
			classic := startNginxWith(t, manifests, nginxOptions{routing: nginxconf.RoutingNginx})
			lua := startLuaNginx(t, manifests)
			luaRouted += len(lua.routes)
			port := regexpPorts(classic.httpPort, lua.httpPort)
			differ := 0
			for i := 0; i < propertyRequestsPerSeed; i++ {
				host, path, headers := g.request()
				cr, cb := classic.call(t, http.MethodGet, host, path, "", headers...)
				lr, lb := lua.call(t, http.MethodGet, host, path, "", headers...)
				c := propertyAnswer(cr, cb, port)
				l := propertyAnswer(lr, lb, port)
				kinds[fmt.Sprintf("%d %s", cr.StatusCode, cr.Header.Get("X-Backend"))]++
				total++
				if c != l {
					differ++
					if differ <= 10 {
						t.Errorf("GET http://%s%s %v: classic %.200s, lua %.200s", host, path, headers, c, l)
					}
				}
			}
			if differ > 0 {
				t.Errorf("seed %d: %d of %d requests differ; the manifests:\n%s", seed, differ, propertyRequestsPerSeed, manifests)
			}
		})
	}
	t.Logf("%d requests over %d seeds, %d host entries routed by Lua; answers by status and backend: %v", total, len(seeds), luaRouted, kinds)
	// The draws must reach the router and give varied answers, else the
	// test compares nothing.
	if luaRouted == 0 {
		t.Error("no host was routed by Lua: the generator only makes classic hosts")
	}
	if len(kinds) < 6 {
		t.Errorf("only %d kinds of answer: the random requests do not exercise the routing", len(kinds))
	}
}

// propertyAnswer is what both modes must agree on: status, body (backend
// and URI it got), Location with the ports replaced, the Host and
// X-Forwarded-Prefix the backend got, and the CORS answer.
func propertyAnswer(r *http.Response, body []byte, port func(string) string) string {
	return fmt.Sprintf("%d %q %s %q %q cors %q %q", r.StatusCode, body, port(r.Header.Get("Location")),
		r.Header.Get("X-Got-Host"), r.Header.Get("X-Got-Prefix"),
		r.Header.Get("Access-Control-Allow-Origin"), r.Header.Get("Access-Control-Allow-Methods"))
}

// propertySeeds parses propertySeedsEnv, else the default seeds.
func propertySeeds(t *testing.T) []uint64 {
	v := os.Getenv(propertySeedsEnv)
	if v == "" {
		return defaultPropertySeeds
	}
	var seeds []uint64
	for _, part := range strings.Split(v, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", propertySeedsEnv, v, err)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil || b < a {
				t.Fatalf("%s=%q: bad range %q", propertySeedsEnv, v, part)
			}
		}
		for s := a; s <= b; s++ {
			seeds = append(seeds, s)
		}
	}
	return seeds
}

// propertyBackends are the Services every generated Ingress points at.
var propertyBackends = []string{"b0", "b1", "b2", "b3"}

// The pools the generator draws from: few enough values that paths and
// hosts of different Ingresses overlap, and requests hit them.
var (
	propertyHosts     = []string{"h0.example.com", "h1.example.com", "*.w.example.com", "x.w.example.com", ""}
	propertyReqHosts  = []string{"h0.example.com", "h1.example.com", "x.w.example.com", "y.w.example.com", "z.y.w.example.com", "w.example.com", "H0.Example.COM", "unknown.example.org"}
	propertySegments  = []string{"a", "b", "ab", "A", "a.b", "x"}
	propertyRegexes   = []string{"/a(/|$)(.*)", "/[ab]+", "/a/.*", "/(a|b)/x", "/b$", "/ab?/(.*)", "/A(/|$)(.*)", "/x/[0-9]+"}
	propertyReqOddity = []string{"//", "/./", "/../", "/%61", "/%2F"}
	propertySnippets  = []string{
		"rewrite ^/a/(.*)$ /b/$1 last;\n",
		"rewrite ^/a(.*)$ /x$1;\n",
		"rewrite ^/(ab?)/(.*)$ /$2?s=$1 break;\n",
		"rewrite ^/b$ /a/ permanent;\n",
		"rewrite ^/x(.*) https://r.example.org$1 redirect;\n",
		"rewrite ^/A/(.*)$ /a/$1?q=$1? last;\n",
		"rewrite ^/a/b /a/b last;\n",
		"return 418 \"tea $uri\";\n",
		"return 302 /b$request_uri;\n",
	}
	propertyServerSnippets = []string{
		"rewrite ^/b/(.*)$ /a/$1 last;\n",
		"proxy_hide_header X-Got-Prefix;\nrewrite ^/x$ /a;\n",
		"rewrite ^/ab(.*) /b$1 break;\nlocation = /a/x { return 410; }\n",
		"proxy_hide_header X-Got-Host;\n",
	}
)

// propertyGen draws manifests and requests from one seeded source.
type propertyGen struct {
	r *rand.Rand
	// drawn are the Ingresses drawn so far, whose hosts and paths half
	// of the requests aim at.
	drawn []propertyIngress
}

// propertyIngress is a drawn Ingress's host and "PathType path backend"
// paths.
type propertyIngress struct {
	host  string
	paths []string
}

func (g propertyGen) pick(from []string) string { return from[g.r.IntN(len(from))] }

func (g propertyGen) chance(percent int) bool { return g.r.IntN(100) < percent }

// path is a plain path of 0–3 segments, sometimes with a trailing slash.
func (g propertyGen) path() string {
	n := g.r.IntN(4)
	var b strings.Builder
	for range n {
		b.WriteString("/" + g.pick(propertySegments))
	}
	if n == 0 || g.chance(25) {
		b.WriteString("/")
	}
	return b.String()
}

// manifests are the Services of ports and 3–8 Ingresses.
func (g *propertyGen) manifests(ports map[string]int) string {
	var b strings.Builder
	for _, name := range propertyBackends {
		b.WriteString(serviceYAML(name, ports[name]))
	}
	count := 3 + g.r.IntN(6)
	for i := range count {
		name := fmt.Sprintf("ing%d", i)
		ann := map[string]string{}
		// A canary of an earlier Ingress: its host and paths, another
		// backend, a header or an all-or-nothing weight.
		if len(g.drawn) > 0 && g.chance(20) {
			e := g.drawn[g.r.IntN(len(g.drawn))]
			ann["canary"] = "true"
			if g.chance(60) {
				ann["canary-by-header"] = "X-C"
			} else {
				ann["canary-weight"] = g.pick([]string{"0", "100"})
			}
			backend := g.pick(propertyBackends)
			var paths []string
			for _, p := range e.paths {
				f := strings.Fields(p)
				paths = append(paths, f[0]+" "+f[1]+" "+backend)
			}
			b.WriteString(luaIngress(name, e.host, false, ann, paths...))
			continue
		}
		host := g.pick(propertyHosts)
		regex := g.chance(35)
		if regex {
			ann["use-regex"] = "true"
			if g.chance(50) {
				ann["rewrite-target"] = g.pick([]string{"/$2", "/r/$1", "/", "/$1?k=v"})
			}
		} else if g.chance(10) {
			ann["rewrite-target"] = "/r"
		}
		switch {
		case g.chance(8):
			ann["app-root"] = "/a"
		case g.chance(8):
			ann["permanent-redirect"] = "https://new.example.org/x"
		case g.chance(6):
			ann["temporal-redirect"] = "https://tmp.example.org/"
		}
		if g.chance(12) {
			ann["x-forwarded-prefix"] = "/p"
		}
		if g.chance(10) {
			ann["upstream-vhost"] = "v.example"
		}
		tls := host != "" && g.chance(15)
		if tls && g.chance(50) {
			ann["ssl-redirect"] = "false"
		}
		if g.chance(10) {
			ann["preserve-trailing-slash"] = "true"
		}
		if g.chance(12) {
			ann["enable-cors"] = "true"
			if g.chance(50) {
				ann["cors-allow-origin"] = "https://a.example.org, https://*.b.example.org"
			}
		}
		switch {
		case g.chance(8):
			ann["allowlist-source-range"] = g.pick([]string{"10.0.0.0/8", "10.0.0.0/8, 127.0.0.0/8"})
		case g.chance(5):
			ann["denylist-source-range"] = "127.0.0.1/32"
		}
		if g.chance(15) {
			// a configuration-snippet's rewrite and return lines (the
			// router runs them: lua/rewrite.lua)
			ann["configuration-snippet"] = g.pick(propertySnippets)
			if g.chance(30) {
				ann["configuration-snippet"] += g.pick(propertySnippets)
			}
		}
		if host != "" && g.chance(8) {
			// a server-snippet's rewrites and hidden headers (the
			// router runs them before it matches the path)
			ann["server-snippet"] = g.pick(propertyServerSnippets)
		}
		var paths []string
		for range 1 + g.r.IntN(4) {
			backend := g.pick(propertyBackends)
			pathType := g.pick([]string{"Prefix", "Exact", "ImplementationSpecific"})
			path := g.path()
			if regex && g.chance(60) {
				pathType, path = "ImplementationSpecific", g.pick(propertyRegexes)
			}
			paths = append(paths, pathType+" "+path+" "+backend)
		}
		b.WriteString(luaIngress(name, host, tls, ann, paths...))
		g.drawn = append(g.drawn, propertyIngress{host, paths})
	}
	return b.String()
}

// request draws a host, a path (sometimes with a query or an odd
// segment) and the canary header.
func (g *propertyGen) request() (host, path string, headers []string) {
	if g.chance(40) {
		headers = []string{"X-C", g.pick([]string{"always", "never"})}
	}
	if g.chance(20) {
		headers = append(headers, "Origin", g.pick([]string{"https://a.example.org", "https://x.b.example.org", "https://evil.org"}))
	}
	if len(g.drawn) > 0 && g.chance(50) {
		host, path = g.nearDrawn()
		return host, path, headers
	}
	host = g.pick(propertyReqHosts)
	var b strings.Builder
	for range 1 + g.r.IntN(3) {
		b.WriteString("/" + g.pick(propertySegments))
		if g.chance(8) {
			b.WriteString(g.pick(propertyReqOddity) + g.pick(propertySegments))
		}
	}
	if g.chance(30) {
		b.WriteString("/")
	}
	if g.chance(15) {
		b.WriteString("?q=" + g.pick(propertySegments))
	}
	return host, b.String(), headers
}

// nearDrawn is a request for a drawn Ingress's host and one of its
// paths, as it is or a near miss: a trailing slash added or taken off, a
// segment more, upper case, a query. A regex path is taken as text.
func (g *propertyGen) nearDrawn() (host, path string) {
	d := g.drawn[g.r.IntN(len(g.drawn))]
	switch {
	case d.host == "":
		host = g.pick(propertyReqHosts)
	case strings.HasPrefix(d.host, "*."):
		host = g.pick([]string{"q", "x", "a.b"}) + d.host[1:]
	default:
		host = d.host
	}
	path = strings.Fields(d.paths[g.r.IntN(len(d.paths))])[1]
	switch g.r.IntN(6) {
	case 0:
		path += "/"
	case 1:
		path = strings.TrimSuffix(path, "/")
		if path == "" {
			path = "/"
		}
	case 2:
		path = strings.TrimSuffix(path, "/") + "/" + g.pick(propertySegments)
	case 3:
		path = strings.ToUpper(path)
	case 4:
		path += "?q=1"
	}
	return host, path
}
