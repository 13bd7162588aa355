package e2e

// Basic authentication (auth-type basic, auth-secret, auth-realm) through
// the controller loop and a real nginx, compared with ingress-nginx's e2e
// test annotations/auth.go: right credentials 200, wrong or missing 401
// with WWW-Authenticate naming the realm, the backend never gets the
// Authorization header; and ours: an edit of the Secret is applied by
// rewriting the htpasswd file, without a reload (nginx opens it per
// request), while the model says so (a dynamic reason).

import (
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// Password hashes of the tests: {SHA} made here, SHA-512 crypt and bcrypt
// made by crypt(3) (libxcrypt, which nginx calls for them).
const (
	sha512Opensesame = "$6$saltsalt$/dpv42BvGInVKxDULxBMfXE6CN.oHtXdmTeHWMcv5rsd81TjdKcroane5LphAqgVenp/4K1qV/7eYEdl4XS9O/"
	bcryptPw         = "$2b$05$abcdefghijklmnopqrstuuTmHGD1q0NGBjYI6evjaX5UpuGijG7V6" // "bcryptpw"
)

func shaHash(password string) string {
	sum := sha1.Sum([]byte(password))
	return "{SHA}" + base64.StdEncoding.EncodeToString(sum[:])
}

// basicAuthManifests are the echo Service, an htpasswd Secret holding
// htpasswd and an Ingress with basic authentication for host.
func basicAuthManifests(port int, host, htpasswd string) string {
	return serviceOf("echo", &backend{port: port}) + fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata: {name: users, namespace: e2e}
data:
  auth: %s
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: echo
  namespace: e2e
  creationTimestamp: "2026-01-01T00:00:00Z"
  annotations:
    nginx.ingress.kubernetes.io/auth-type: basic
    nginx.ingress.kubernetes.io/auth-secret: users
    nginx.ingress.kubernetes.io/auth-realm: "Team area"
spec:
  ingressClassName: nginx
  rules:
  - host: %s
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: echo, port: {number: 80}}}}
`, base64.StdEncoding.EncodeToString([]byte(htpasswd)), host)
}

// usersSecret is the Secret e2e/users whose key auth holds htpasswd.
func usersSecret(htpasswd string) string {
	return "apiVersion: v1\nkind: Secret\nmetadata: {name: users, namespace: e2e}\ndata:\n  auth: " +
		base64.StdEncoding.EncodeToString([]byte(htpasswd)) + "\n---\n"
}

// basicAnswer is the answer to a request with basic credentials.
type basicAnswer struct {
	status          int
	wwwAuthenticate string
	got             map[string]string // the headers the echo backend got
}

// getAuth sends GET http://host/ to nginx with the credentials user:pass
// ("" user: none).
func getAuth(t *testing.T, httpPort int, host, user, pass string) basicAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(httpPort)+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", host, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	a := basicAnswer{status: resp.StatusCode, wwwAuthenticate: resp.Header.Get("WWW-Authenticate")}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(body, &a.got); err != nil {
			t.Fatalf("backend answer %q: %v", body, err)
		}
	}
	return a
}

func TestBasicAuth(t *testing.T) {
	port := headerEcho(t)
	const host = "basic.example.com"
	htpasswd := "alice:" + shaHash("secret") + "\ncarol:" + sha512Opensesame + "\ndave:" + bcryptPw + "\n"
	fc := startFilesController(t, map[string]string{"app.yaml": basicAuthManifests(port, host, htpasswd)})

	const realm = `Basic realm="Team area"`
	for _, tc := range []struct {
		name, user, pass string
		status           int
	}{
		{"right {SHA}", "alice", "secret", http.StatusOK},
		{"right SHA-512 crypt", "carol", "opensesame", http.StatusOK},
		{"right bcrypt", "dave", "bcryptpw", http.StatusOK},
		{"wrong password", "alice", "guess", http.StatusUnauthorized},
		{"unknown user", "mallory", "secret", http.StatusUnauthorized},
		{"no credentials", "", "", http.StatusUnauthorized},
	} {
		a := getAuth(t, fc.httpPort, host, tc.user, tc.pass)
		if a.status != tc.status {
			t.Errorf("%s: status %d, want %d", tc.name, a.status, tc.status)
			continue
		}
		if tc.status == http.StatusUnauthorized && a.wwwAuthenticate != realm {
			t.Errorf("%s: WWW-Authenticate %q, want %q", tc.name, a.wwwAuthenticate, realm)
		}
		if tc.status == http.StatusOK {
			if v, ok := a.got["Authorization"]; ok {
				t.Errorf("%s: the backend got Authorization %q", tc.name, v)
			}
		}
	}

	// An edit of the Secret: alice's password changes, bob comes. The
	// htpasswd file is rewritten in place; nginx does not reload.
	before := fc.workerPids(t)
	stats := fc.settle(t)
	fc.write(t, "app.yaml", basicAuthManifests(port, host, "alice:"+shaHash("new-secret")+"\nbob:{PLAIN}builder\n"))
	waitFor(t, 20*time.Second, "the new password of alice", func() bool {
		return getAuth(t, fc.httpPort, host, "alice", "new-secret").status == http.StatusOK
	})
	if a := getAuth(t, fc.httpPort, host, "bob", "builder"); a.status != http.StatusOK {
		t.Errorf("bob after the edit: status %d, want 200", a.status)
	}
	if a := getAuth(t, fc.httpPort, host, "alice", "secret"); a.status != http.StatusUnauthorized {
		t.Errorf("alice's old password after the edit: status %d, want 401", a.status)
	}
	if a := getAuth(t, fc.httpPort, host, "carol", "opensesame"); a.status != http.StatusUnauthorized {
		t.Errorf("carol, removed by the edit: status %d, want 401", a.status)
	}
	after := fc.workerPids(t)
	now := fc.settle(t)
	if !slices.Equal(before, after) || now.Reloads != stats.Reloads {
		t.Errorf("the Secret edit reloaded nginx: workers %v → %v, reloads %d → %d", before, after, stats.Reloads, now.Reloads)
	}
	if now.DynamicUpdates <= stats.DynamicUpdates {
		t.Errorf("the Secret edit was no dynamic update: %d → %d", stats.DynamicUpdates, now.DynamicUpdates)
	}
	if !strings.Contains(fc.logs.String(), "nginx reads it per request (no reload)") {
		t.Errorf("the controller's plan does not say the file change needs no reload")
	}
	checkFileModes(t, fc.inst.FilesDir())
}

// checkFileModes checks that every file under dir is 0600 and, when the
// test runs as root (nginx's workers then run as nobody), that an
// htpasswd file belongs to nobody, who reads it per request.
func checkFileModes(t *testing.T, dir string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", path, fi.Mode().Perm())
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && os.Geteuid() == 0 && strings.HasSuffix(path, ".htpasswd") {
			if u, err := user.Lookup("nobody"); err == nil && strconv.Itoa(int(st.Uid)) != u.Uid {
				t.Errorf("%s: owner %d, want nobody (%s), the workers' user", path, st.Uid, u.Uid)
			}
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Errorf("files under %s: %d, %v", dir, n, err)
	}
}

// TestBasicAuthFailsClosed: a missing Secret and digest answer 503, as
// ingress-nginx denies the location, instead of serving without
// authentication.
func TestBasicAuthFailsClosed(t *testing.T) {
	port := headerEcho(t)
	m := serviceOf("echo", &backend{port: port})
	for i, ann := range []string{
		"nginx.ingress.kubernetes.io/auth-type: basic\n    nginx.ingress.kubernetes.io/auth-secret: absent",
		"nginx.ingress.kubernetes.io/auth-type: digest\n    nginx.ingress.kubernetes.io/auth-secret: absent",
	} {
		m += fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: closed-%d
  namespace: e2e
  annotations:
    %s
spec:
  ingressClassName: nginx
  rules:
  - host: closed-%d.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: echo, port: {number: 80}}}}
---
`, i, ann, i)
	}
	n := startNginx(t, m)
	for i := range 2 {
		host := fmt.Sprintf("closed-%d.example.com", i)
		if code, _ := n.get(t, host, "/"); code != http.StatusServiceUnavailable {
			t.Errorf("%s: status %d, want 503", host, code)
		}
	}
}

// TestBasicAuthDefaultRealm: without auth-realm the realm is empty, as in
// ingress-nginx (auth_basic ""), and authentication is still asked.
func TestBasicAuthDefaultRealm(t *testing.T) {
	port := headerEcho(t)
	m := serviceOf("echo", &backend{port: port}) + usersSecret("alice:{PLAIN}wonderland\n") +
		ingressOf("plain-realm", "realm.example.com", "echo", "2026-01-01T00:00:00Z", map[string]string{"auth-type": "basic", "auth-secret": "users"})
	n := startNginx(t, m)
	if a := getAuth(t, n.httpPort, "realm.example.com", "", ""); a.status != http.StatusUnauthorized || a.wwwAuthenticate != `Basic realm=""` {
		t.Errorf("no credentials: %d %q, want 401 with an empty realm", a.status, a.wwwAuthenticate)
	}
	if a := getAuth(t, n.httpPort, "realm.example.com", "alice", "wonderland"); a.status != http.StatusOK {
		t.Errorf("alice: status %d, want 200", a.status)
	}
}

// TestBasicAuthBothModes holds the Lua router's auth-type basic (nginx's
// auth_basic on the variables the router sets) to the classic location's,
// with the phases in nginx's order: a rate limit refuses before the
// credentials are asked (preaccess), a denied source range answers 403
// before them (the access module runs before auth_basic) but under
// satisfy any, where the range lets a client in without them and the
// credentials let in one it refuses, a host without
// authentication passes the client's Authorization header on, and a host
// with it never does.
func TestBasicAuthBothModes(t *testing.T) {
	port := headerEcho(t)
	m := serviceOf("echo", &backend{port: port}) + usersSecret("alice:"+shaHash("secret")+"\n")
	auth := func(extra ...string) map[string]string {
		a := map[string]string{"auth-type": "basic", "auth-secret": "users", "auth-realm": "Team area"}
		for i := 0; i+1 < len(extra); i += 2 {
			a[extra[i]] = extra[i+1]
		}
		return a
	}
	m += ingressOf("basic", "basic.test", "echo", "2026-01-01T00:00:00Z", auth()) +
		ingressOf("denied", "denied.test", "echo", "2026-01-01T00:00:01Z", auth("denylist-source-range", "127.0.0.1/32")) +
		ingressOf("open", "open.test", "echo", "2026-01-01T00:00:02Z", nil) +
		ingressOf("limited", "limited.test", "echo", "2026-01-01T00:00:03Z", auth("limit-rps", "1", "limit-burst-multiplier", "1")) +
		ingressOf("small", "small.test", "echo", "2026-01-01T00:00:04Z", auth("proxy-body-size", "1k")) +
		ingressOf("small-open", "small-open.test", "echo", "2026-01-01T00:00:05Z", map[string]string{"proxy-body-size": "1k"}) +
		ingressOf("any-in", "any-in.test", "echo", "2026-01-01T00:00:06Z", auth("satisfy", "any", "whitelist-source-range", "127.0.0.1/32")) +
		ingressOf("any-out", "any-out.test", "echo", "2026-01-01T00:00:07Z", auth("satisfy", "any", "whitelist-source-range", "10.0.0.0/8")) +
		ingressOf("any-deny", "any-deny.test", "echo", "2026-01-01T00:00:08Z", auth("satisfy", "any", "denylist-source-range", "10.0.0.0/8"))
	const realm = `Basic realm="Team area"`
	for _, mode := range []string{nginxconf.RoutingNginx, nginxconf.RoutingLua} {
		t.Run(mode, func(t *testing.T) {
			n := startNginxWith(t, m, nginxOptions{routing: mode})
			if mode == nginxconf.RoutingLua && (bytes.Contains(n.conf, []byte("basic.test")) || len(n.routes) < 4) {
				t.Fatalf("the hosts with auth-type basic are not Lua-routed (%d entries)", len(n.routes))
			}
			for _, tc := range []struct {
				name, host, user, pass string
				status                 int
				challenge              bool // WWW-Authenticate names the realm
				authorization          bool // the backend got the client's Authorization
			}{
				{"no credentials", "basic.test", "", "", 401, true, false},
				{"wrong password", "basic.test", "alice", "guess", 401, true, false},
				{"right password", "basic.test", "alice", "secret", 200, false, false},
				{"denied range, no credentials", "denied.test", "", "", 403, false, false},
				{"denied range, right password", "denied.test", "alice", "secret", 403, false, false},
				{"no authentication", "open.test", "alice", "secret", 200, false, true},
				// satisfy any: the source range is enough, else the credentials
				{"satisfy any, allowed range, no credentials", "any-in.test", "", "", 200, false, false},
				{"satisfy any, allowed range, right password", "any-in.test", "alice", "secret", 200, false, false},
				{"satisfy any, other range, no credentials", "any-out.test", "", "", 401, true, false},
				{"satisfy any, other range, wrong password", "any-out.test", "alice", "guess", 401, true, false},
				{"satisfy any, other range, right password", "any-out.test", "alice", "secret", 200, false, false},
				// deny lines alone let nobody in (nginx's access module
				// grants by an allow line only): the credentials decide
				{"satisfy any, deny lines alone, no credentials", "any-deny.test", "", "", 401, true, false},
				{"satisfy any, deny lines alone, right password", "any-deny.test", "alice", "secret", 200, false, false},
			} {
				a := getAuth(t, n.httpPort, tc.host, tc.user, tc.pass)
				_, got := a.got["Authorization"]
				if a.status != tc.status || (a.wwwAuthenticate == realm) != tc.challenge || got != tc.authorization {
					t.Errorf("%s (%s): status %d, WWW-Authenticate %q, backend got Authorization %v; want %d, challenge %v, Authorization %v",
						tc.name, tc.host, a.status, a.wwwAuthenticate, got, tc.status, tc.challenge, tc.authorization)
				}
			}
			// limit-rps 1, burst 1: the first two requests reach auth_basic
			// (401), the next ones are refused before it (503), but for
			// what the rate drained meanwhile
			var statuses []int
			start := time.Now()
			for range 6 {
				statuses = append(statuses, getAuth(t, n.httpPort, "limited.test", "", "").status)
			}
			asked, most := 0, 2+int(time.Since(start).Seconds()+1)
			for _, s := range statuses {
				switch s {
				case 401:
					asked++
				case 503:
				default:
					t.Errorf("limited.test without credentials: status %d in %v", s, statuses)
				}
			}
			if statuses[0] != 401 || statuses[1] != 401 || asked > most {
				t.Errorf("limited.test without credentials: %v, want 401 401 then 503 (at most %d asked for credentials)", statuses, most)
			}
			// proxy-body-size 1k: a chunked body is measured after the
			// credentials (401 first, the body never read), without
			// authentication as soon as the route is known (in Lua
			// routing: in the router's own location, which has no access
			// phase)
			credentials := func(r *http.Request) { r.SetBasicAuth("alice", "secret") }
			for _, tc := range []struct {
				host    string
				size    int
				with    []func(*http.Request)
				want    int
				chunked bool
			}{
				{"small.test", 4096, nil, 401, true},
				{"small.test", 4096, []func(*http.Request){credentials}, 413, true},
				{"small.test", 512, []func(*http.Request){credentials}, 200, true},
				{"small.test", 4096, []func(*http.Request){credentials}, 413, false},
				{"small-open.test", 4096, nil, 413, true},
				{"small-open.test", 512, nil, 200, true},
			} {
				if got := postBody(t, n, tc.host, tc.size, tc.chunked, tc.with...); got != tc.want {
					t.Errorf("POST of %d bytes (chunked %v) to %s with %d credentials: status %d, want %d",
						tc.size, tc.chunked, tc.host, len(tc.with), got, tc.want)
				}
			}
		})
	}
}
