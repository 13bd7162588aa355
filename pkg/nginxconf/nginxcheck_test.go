package nginxconf

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math/rand"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/internal/pcrecases"
	"github.com/kubectl-ingress/kubectl-ingress/internal/testports"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// The tests of this file hold render to nginx's own judgement: whatever
// Build accepts must pass a real nginx -t (Debian's nginx 1.22.1 with
// PCRE2), so that Go's view of a regex, a length or a hash size and
// nginx's can never silently disagree again. They skip only when nginx is
// not installed (make deps installs it; CI has it).

// TestNGINXAcceptsRenderedCorpus renders the regex and path corpus (the
// fuzzer's seeds and testdata/fuzz corpus, regexCases, and a generated set
// of regex-like paths) in one batch, one Ingress per input, and runs one
// nginx -t on the result.
func TestNGINXAcceptsRenderedCorpus(t *testing.T) {
	nginxtest.Require(t)
	cases := nginxCorpus(t)
	start := time.Now()
	snap := batchSnapshot(cases)
	cfg, problems := render.Build(snap, render.DefaultOptions())
	conf, err := NGINXConf(cfg, DefaultConfOptions())
	if err != nil {
		t.Fatalf("the writer refused the batch: %v", err)
	}
	built := time.Since(start)
	refused := map[string]bool{}
	for _, p := range problems {
		if strings.HasSuffix(p.Field, ".path") {
			refused[p.Object.Name] = true
		}
	}
	start = time.Now()
	nginxAccepts(t, conf)
	t.Logf("batch: %d inputs, %d with a refused path, %d locations in %d servers; nginx.conf %d KB; Build and write %v, nginx -t %v",
		len(cases), len(refused), countLocations(cfg), len(cfg.Servers), len(conf)/1024, built.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	for _, c := range pcrecases.Cases {
		name := batchName(c.Re)
		if got := refused[name]; got != (c.Want != "") {
			t.Errorf("path %q refused %v, want %v", c.Re, got, c.Want != "")
		}
	}
}

// TestNGINXServerNameLengths runs nginx -t on a host of each length at the
// edges of the hash bucket sizes: only the longest name decides the
// bucket, so each length is a config of its own.
func TestNGINXServerNameLengths(t *testing.T) {
	nginxtest.Require(t)
	var hosts []string
	for _, n := range []int{46, 47, 48, 110, 111, 112, 238, 239, 253} {
		hosts = append(hosts, hostOfLength(n))
	}
	for _, n := range []int{47, 112, 253} {
		hosts = append(hosts, "*."+hostOfLength(n-2))
	}
	for _, host := range hosts {
		n := len(host)
		snap := fuzzSnapshot(host, "/", "use-regex", "false")
		// A second server on the same listen: nginx builds the hash
		// only for a listen with several names.
		other := fuzzSnapshot("other.example.com", "/", "use-regex", "false").Ingresses[0]
		other.Name = "other"
		snap.Ingresses = append(snap.Ingresses, other)
		cfg, problems := render.Build(snap, render.DefaultOptions())
		if len(problems) > 0 {
			t.Fatalf("host of %d bytes: %v", n, problems)
		}
		conf, err := NGINXConf(cfg, DefaultConfOptions())
		if err != nil {
			t.Fatal(err)
		}
		t.Run(strconv.Itoa(n)+strings.Repeat("-wildcard", strings.Count(host[:1], "*")), func(t *testing.T) { nginxAccepts(t, conf) })
	}
}

// nginxAccepts runs nginx -t (nginxtest.Tester) on conf and fails with
// nginx's message and the line it names.
func nginxAccepts(t *testing.T, conf []byte) {
	t.Helper()
	in := nginxtest.Tester(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := in.Test(ctx, conf)
	var te *nginx.TestError
	switch {
	case errors.As(err, &te):
		line := ""
		if lines := strings.Split(string(conf), "\n"); te.Line > 0 && te.Line <= len(lines) {
			line = lines[te.Line-1]
		}
		t.Fatalf("nginx -t refused what render accepted: %s\nline %d: %s", te.Message, te.Line, annotations.ValueQuote(line))
	case err != nil:
		t.Fatal(err)
	}
}

// nginxCorpus gathers the inputs: the fuzzer's seeds and corpus files,
// every regexCases pattern (with use-regex, and again as the path of a
// rewrite-target), and generated regex-like paths.
func nginxCorpus(t *testing.T) []fuzzCase {
	const useRegex, rewriteTarget = 19, 0
	cases := append([]fuzzCase(nil), fuzzSeeds...)
	cases = append(cases, readFuzzCorpus(t, filepath.Join("testdata", "fuzz", "FuzzNGINXConf"))...)
	for _, c := range pcrecases.Cases {
		cases = append(cases, fuzzCase{path: c.Re, ann: useRegex, value: "true"})
	}
	for _, c := range pcrecases.Cases {
		cases = append(cases, fuzzCase{path: c.Re, ann: rewriteTarget, value: "/$1"})
	}
	for i, p := range generatedRegexPaths(6000, 1) {
		ann, value := uint8(useRegex), "true"
		if i%4 == 0 {
			ann, value = rewriteTarget, "/x/$1"
		}
		cases = append(cases, fuzzCase{path: p, ann: ann, value: value})
	}
	return cases
}

// regexTokens are the pieces generatedRegexPaths joins: the syntax that Go
// and PCRE2 read differently, and what real paths hold.
var regexTokens = []string{
	"a", "B", "/", "-", ".", "*", "+", "?", "{2}", "{2,}", "{0,3}", "{,3}", "{", "}", "(", ")", "(?:", "(?i)", "(?i:",
	"(?-i)", "(?U)", "(?s)", "(?P<x>", "(?<uri>", "|", "[", "]", "^", "$", `\d`, `\w`, `\s`, `\D`, `\W`, `\b`, `\B`,
	`\A`, `\z`, `\v`, `\x41`, `\x{41}`, `\x{100}`, `\x7f`, `\x80`, `\0`, `\12`, `\1`, `\777`, `\.`, `\-`, `\]`, `\[`,
	`\\`, `\Q`, `\E`, "[:alpha:]", "[[:digit:]]", "[:", ":]", "[.", ".]", "[=", "=]", ":", "=", "[^", `\pL`, `\t`,
	"%", "#", "@", "[a-z]", `[\w-]`, `[\d-z]`, "[^/]", "(abc){100}", "é",
}

// pathTokens are what real regex paths are made of; generatedRegexPaths
// takes most tokens from them so that most paths are accepted.
var pathTokens = []string{
	"api", "v1", "/", "/", "-", "_", ".", ".*", ".+", `\.`, "(.*)", "(/|$)", "[0-9]+", `\d+`, `[\w-]+`, "[^/]+",
	"(?:a|b)", "?", "*", "+", "{2,4}", "$", "(", ")", "|", "[a-z]", "(?i)", "%20", "~", "@", ":", ",", "!",
}

// generatedRegexPaths makes n distinct regex-like paths, most tokens from
// pathTokens and one in five from regexTokens; the same for the same seed.
func generatedRegexPaths(n int, seed int64) []string {
	r := rand.New(rand.NewSource(seed))
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var b strings.Builder
		b.WriteString("/")
		for k := 1 + r.Intn(8); k > 0; k-- {
			if r.Intn(5) == 0 {
				b.WriteString(regexTokens[r.Intn(len(regexTokens))])
			} else {
				b.WriteString(pathTokens[r.Intn(len(pathTokens))])
			}
		}
		if p := b.String(); !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// readFuzzCorpus reads the seed corpus files of FuzzNGINXConf ("go test
// fuzz v1" then string, string, byte, string).
func readFuzzCorpus(t *testing.T, dir string) []fuzzCase {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []fuzzCase
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		if len(lines) != 5 || lines[0] != "go test fuzz v1" {
			t.Fatalf("%s: not a FuzzNGINXConf corpus file", e.Name())
		}
		var vals [4]string
		for i, l := range lines[1:] {
			open, close := strings.IndexByte(l, '('), strings.LastIndexByte(l, ')')
			if open < 0 || close < open {
				t.Fatalf("%s: line %q", e.Name(), l)
			}
			arg := l[open+1 : close]
			if strings.HasPrefix(l, "byte(") {
				v, _, _, err := strconv.UnquoteChar(strings.Trim(arg, "'"), '\'')
				if err != nil {
					t.Fatalf("%s: %v", e.Name(), err)
				}
				arg = strconv.Itoa(int(v))
			} else if arg, err = strconv.Unquote(arg); err != nil {
				t.Fatalf("%s: %v", e.Name(), err)
			}
			vals[i] = arg
		}
		ann, _ := strconv.Atoi(vals[2])
		out = append(out, fuzzCase{host: vals[0], path: vals[1], ann: uint8(ann), value: vals[3]})
	}
	return out
}

// batchSnapshot makes one Ingress per case (named after its path). A case
// with a host of its own keeps it when it is the first to use it, else gets
// a generated one, so that its host settings never spread to another case.
// The cases without a host (regex paths) share hosts by hundreds, one
// annotation per host: nginx -t takes its time per server block.
func batchSnapshot(cases []fuzzCase) render.Snapshot {
	var s render.Snapshot
	seenHost, seenName := map[string]bool{}, map[string]bool{}
	for i, c := range cases {
		host := c.host
		switch {
		case host == "":
			host = "g" + strconv.Itoa(int(c.ann)) + "-" + strconv.Itoa(i/100) + ".batch.test"
		case seenHost[host]:
			host = "c" + strconv.Itoa(i) + ".batch.test"
		}
		seenHost[host] = true
		one := fuzzSnapshot(host, c.path, fuzzAnnotations[int(c.ann)%len(fuzzAnnotations)], c.value)
		ing := one.Ingresses[0]
		ing.Name = batchName(c.path)
		if seenName[ing.Name] {
			ing.Name += "-" + strconv.Itoa(i)
		}
		seenName[ing.Name] = true
		s.Ingresses = append(s.Ingresses, ing)
		if s.Services == nil {
			s.Services = one.Services
		}
	}
	return s
}

// batchName names the Ingress of a path: a hash, so that the names are
// valid and a refused path can be found by name.
func batchName(path string) string {
	h := uint32(2166136261)
	for i := 0; i < len(path); i++ {
		h = (h ^ uint32(path[i])) * 16777619
	}
	return "p-" + strconv.FormatUint(uint64(h), 36)
}

// hostOfLength gives a DNS name of n bytes.
func hostOfLength(n int) string {
	var labels []string
	rest := n - len(".example.com")
	for rest > 0 {
		l := min(63, rest)
		if rest-l == 1 {
			l-- // leave room for a label of 1 after the dot
		}
		labels = append(labels, strings.Repeat("h", l))
		rest -= l + 1
	}
	return strings.Join(labels, ".") + ".example.com"
}

// TestNGINXAppRootIgnoresHostHeader serves an app-root host with a real
// nginx and sends an absolute-form request for it with "Host:
// evil.example": the redirect must not name evil.example (with
// "$scheme://$http_host" it did). Checked with plain requests too.
func TestNGINXAppRootIgnoresHostHeader(t *testing.T) {
	addr := serveSnapshot(t, fuzzSnapshot("root.example.com", "/app", "app-root", "/app"))
	for _, req := range []string{
		"GET http://root.example.com/ HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: root.example.com\r\nConnection: close\r\n\r\n",
		"GET / HTTP/1.0\r\nHost: root.example.com:8080\r\n\r\n",
	} {
		status, location := rawRequest(t, addr, req)
		if status != 302 || location != "/app" {
			t.Errorf("%q: %d, Location %q; want 302 and \"/app\"", req, status, location)
		}
	}
}

// TestNGINXHTTPSRedirectIgnoresHostHeader: the redirect of plain HTTP to
// HTTPS names the host nginx chose the server by, never a Host header that
// differs from it (an absolute-form request for secure.example.com with
// "Host: evil.example" went to https://evil.example, as in ingress-nginx).
func TestNGINXHTTPSRedirectIgnoresHostHeader(t *testing.T) {
	addr := serveSnapshot(t, fuzzSnapshot("secure.example.com", "/", "force-ssl-redirect", "true"))
	for _, req := range []string{
		"GET http://secure.example.com/a HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: secure.example.com\r\nConnection: close\r\n\r\n",
		"GET /a HTTP/1.0\r\nHost: Secure.Example.com:8080\r\n\r\n",
	} {
		status, location := rawRequest(t, addr, req)
		if status != 308 || location != "https://secure.example.com/a" {
			t.Errorf("%q: %d, Location %q; want 308 and \"https://secure.example.com/a\"", req, status, location)
		}
	}
}

// serveSnapshot renders snap, starts a real nginx on loopback ports with
// it and returns the address of its plain HTTP listener.
func serveSnapshot(t *testing.T, snap render.Snapshot) string {
	t.Helper()
	nginxtest.Require(t)
	cfg, problems := render.Build(snap, render.DefaultOptions())
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	ports := loopbackPorts(t, 3)
	o := DefaultConfOptions()
	o.ListenAddress, o.HTTPPort, o.HTTPSPort = "127.0.0.1", ports[0], ports[1]
	o.StatusAddress = "127.0.0.1:" + strconv.Itoa(ports[2])
	conf, err := NGINXConf(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	in := nginx.New(t.TempDir(), nginx.Options{StatusURL: "http://" + o.StatusAddress})
	if err := in.Layout(); err != nil {
		t.Fatal(err)
	}
	cert, key, err := nginx.SelfSignedCertificate("default")
	if err != nil {
		t.Fatal(err)
	}
	if err := in.WriteDefaultCertificate(cert, key); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := in.Start(ctx, conf); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Stop(context.Background()) })
	return "127.0.0.1:" + strconv.Itoa(ports[0])
}

// rawRequest sends req as is and returns the status and Location.
func rawRequest(t *testing.T, addr, req string) (int, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location")
}

// loopbackPorts finds n free loopback ports.
func loopbackPorts(t *testing.T, n int) []int {
	t.Helper()
	return testports.Free(t, n)
}
