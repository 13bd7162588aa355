package e2e

// Cookie session affinity (lua/balancer_sticky.lua) with real traffic: the
// cookie is set, kept, honoured by both workers, and rewritten when its
// endpoint goes away or fails.

import (
	"crypto/md5"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func md5hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// persistentCookie is the cookie value that ingress-nginx (and we) give in
// persistent mode to a client bound to b in backend name.
func persistentCookie(name string, b *backend) string {
	return md5hex(name+"127.0.0.1:"+strconv.Itoa(b.port)) + "|" + md5hex(md5hex(name)+name)
}

// setCookie returns the value of the Set-Cookie for name in h and its
// attributes ("" when there is none).
func setCookie(h http.Header, name string) (value, attrs string) {
	for _, line := range h.Values("Set-Cookie") {
		if v, ok := strings.CutPrefix(line, name+"="); ok {
			value, attrs, _ = strings.Cut(v, ";")
			return value, attrs
		}
	}
	return "", ""
}

func TestStickySessions(t *testing.T) {
	per := startBackends(t, "per", 3)
	bal := startBackends(t, "bal", 3)
	cof := startBackends(t, "cof", 2)
	sticky := func(mode string, extra map[string]string) map[string]string {
		a := map[string]string{"affinity": "cookie", "affinity-mode": mode, "session-cookie-name": "e2eroute"}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
	manifests := func(perBackends, balBackends []*backend) string {
		return serviceOf("per", perBackends...) +
			ingressOf("per", "persistent.example.com", "per", "2026-01-01T00:00:00Z", sticky("persistent", map[string]string{
				"session-cookie-max-age": "3600", "session-cookie-expires": "7200", "session-cookie-path": "/",
				"session-cookie-samesite": "Lax", "session-cookie-secure": "true"})) +
			serviceOf("bal", balBackends...) +
			ingressOf("bal", "balanced.example.com", "bal", "2026-01-01T00:00:01Z", sticky("balanced", nil)) +
			serviceOf("cof", cof...) +
			ingressOf("cof", "cof.example.com", "cof", "2026-01-01T00:00:02Z", sticky("persistent", map[string]string{"session-cookie-change-on-failure": "true"})) +
			serviceOf("nocof", cof...) +
			ingressOf("nocof", "nocof.example.com", "nocof", "2026-01-01T00:00:03Z", sticky("persistent", nil))
	}
	n := startNginx(t, manifests(per, bal))
	c := newClient(4)

	// first returns the endpoint and cookie a new client of host gets.
	first := func(t *testing.T, host string) (string, string, string) {
		t.Helper()
		r := send(c, n.request(host, "/"))
		if r.err != nil || r.status != http.StatusOK {
			t.Fatalf("GET %s: %d %v", host, r.status, r.err)
		}
		value, attrs := setCookie(r.header, "e2eroute")
		if value == "" {
			t.Fatalf("GET %s without a cookie: no e2eroute cookie set (Set-Cookie %q)", host, r.header.Values("Set-Cookie"))
		}
		return r.backend, value, attrs
	}
	// stays sends count requests with the cookie and checks they all reach
	// want and set no cookie.
	stays := func(t *testing.T, host, cookie, want string, count int) {
		t.Helper()
		ta := newTally()
		cookies := 0
		for range count {
			r := send(c, n.request(host, "/", "Cookie", "other=1; e2eroute="+cookie))
			ta.add(r)
			if v, _ := setCookie(r.header, "e2eroute"); v != "" {
				cookies++
			}
		}
		if ta.failures > 0 || ta.byName[want] != count {
			t.Fatalf("%d requests with the cookie: %s, want all on %s", count, ta, want)
		}
		if cookies > 0 {
			t.Errorf("%d answers to a client with a valid cookie set it again", cookies)
		}
	}

	t.Run("persistent", func(t *testing.T) {
		bound, cookie, attrs := first(t, "persistent.example.com")
		for _, want := range []string{"Expires=", "Max-Age=3600", "Path=/", "Secure", "HttpOnly", "SameSite=Lax"} {
			if !strings.Contains(attrs, want) {
				t.Errorf("cookie attributes %q lack %q", attrs, want)
			}
		}
		for _, b := range per {
			if b.name == bound && cookie != persistentCookie("e2e-per-80", b) {
				t.Errorf("cookie %q, want ingress-nginx's persistent value %q", cookie, persistentCookie("e2e-per-80", b))
			}
		}
		stays(t, "persistent.example.com", cookie, bound, 100)

		// New clients are spread over the endpoints.
		spread := map[string]bool{}
		for range 30 {
			r := send(c, n.request("persistent.example.com", "/"))
			spread[r.backend] = true
		}
		if len(spread) < 2 {
			t.Errorf("30 new clients all went to %v", spread)
		}

		// The bound endpoint goes away: the client moves and gets a new cookie.
		var left []*backend
		for _, b := range per {
			if b.name != bound {
				left = append(left, b)
			}
		}
		n.push(t, manifests(left, bal))
		r := send(c, n.request("persistent.example.com", "/", "Cookie", "e2eroute="+cookie))
		if r.err != nil || r.status != http.StatusOK || r.backend == bound {
			t.Fatalf("after %s left: %d %q %v, want another endpoint", bound, r.status, r.backend, r.err)
		}
		moved, _ := setCookie(r.header, "e2eroute")
		if moved == "" || moved == cookie {
			t.Fatalf("after %s left: cookie %q not rewritten (was %q)", bound, moved, cookie)
		}
		stays(t, "persistent.example.com", moved, r.backend, 20)
	})

	t.Run("balanced", func(t *testing.T) {
		bound, cookie, _ := first(t, "balanced.example.com")
		stays(t, "balanced.example.com", cookie, bound, 50)
		var left []*backend
		for _, b := range bal {
			if b.name != bound {
				left = append(left, b)
			}
		}
		n.push(t, manifests(per[:2], left))
		r := send(c, n.request("balanced.example.com", "/", "Cookie", "e2eroute="+cookie))
		if r.err != nil || r.status != http.StatusOK || r.backend == bound {
			t.Fatalf("after %s left: %d %q %v, want another endpoint", bound, r.status, r.backend, r.err)
		}
		// In balanced mode the cookie holds a key, not an endpoint: the same
		// cookie now names the new endpoint, and keeps naming it.
		if v, _ := setCookie(r.header, "e2eroute"); v != "" {
			cookie = v
		}
		stays(t, "balanced.example.com", cookie, r.backend, 20)
	})

	t.Run("change on failure", func(t *testing.T) {
		withCOF := persistentCookie("e2e-cof-80", cof[0])
		without := persistentCookie("e2e-nocof-80", cof[0])
		stays(t, "cof.example.com", withCOF, "cof-0", 5)
		stays(t, "nocof.example.com", without, "cof-0", 5)
		cof[0].stop()
		r := send(c, n.request("cof.example.com", "/", "Cookie", "e2eroute="+withCOF))
		if r.err != nil || r.status != http.StatusOK || r.backend != "cof-1" {
			t.Fatalf("change-on-failure with cof-0 down: %d %q %v, want cof-1", r.status, r.backend, r.err)
		}
		if v, _ := setCookie(r.header, "e2eroute"); v != persistentCookie("e2e-cof-80", cof[1]) {
			t.Errorf("change-on-failure: cookie %q, want one for cof-1", v)
		}
		// Without change-on-failure the retry goes to the same endpoint.
		r = send(c, n.request("nocof.example.com", "/", "Cookie", "e2eroute="+without))
		if r.err != nil || r.status != http.StatusBadGateway {
			t.Errorf("without change-on-failure, cof-0 down: %d %q %v, want 502", r.status, r.backend, r.err)
		}
	})
}

// cookieAttr returns the value of attribute name ("Path") in a Set-Cookie
// attribute list such as "; Path=/app; HttpOnly" ("" when absent).
func cookieAttr(attrs, name string) string {
	for _, a := range strings.Split(attrs, ";") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(a), name+"="); ok {
			return v
		}
	}
	return ""
}

// TestStickyCookieOfTheLocation: the affinity cookie is set only by the
// locations of the Ingresses that ask for affinity, with the Ingress path
// as its Path unless session-cookie-path says otherwise, as ingress-nginx
// does (its sticky balancer's cookieSessionAffinity.locations and
// $location_path). Another Ingress's location of the same Service sets no
// cookie, though it follows one the client has: the backend is sticky.
// The Ingress without affinity is the older one, so it creates the
// backend; the affinity of the newer one still applies to it.
func TestStickyCookieOfTheLocation(t *testing.T) {
	bs := startBackends(t, "shared", 3)
	manifests := serviceOf("shared", bs...) +
		nsIngressOf("e2e", "plain", "2026-01-01T00:00:00Z", "plain.example.com", "Prefix", "/", "shared") +
		nsIngressOf("e2e", "app", "2026-01-01T00:00:01Z", "sticky.example.com", "Prefix", "/app", "shared",
			"affinity", "cookie", "session-cookie-name", "e2eroute") +
		nsIngressOf("e2e", "exact", "2026-01-01T00:00:02Z", "sticky.example.com", "Exact", "/exact/page", "shared",
			"affinity", "cookie", "session-cookie-name", "e2eroute") +
		// The cookie settings belong to the backend (ingress-nginx keeps
		// one cookie configuration per upstream): another Service.
		serviceOf("rooted", bs...) +
		nsIngressOf("e2e", "rooted", "2026-01-01T00:00:03Z", "rooted.example.com", "Prefix", "/api", "rooted",
			"affinity", "cookie", "session-cookie-name", "e2eroute", "session-cookie-path", "/")
	n := startNginx(t, manifests)
	c := newClient(2)
	for _, tc := range []struct{ host, path, wantPath string }{
		{"sticky.example.com", "/app", "/app"},
		{"sticky.example.com", "/app/deeper", "/app"},
		{"sticky.example.com", "/exact/page", "/exact/page"},
		{"rooted.example.com", "/api/x", "/"},
	} {
		r := send(c, n.request(tc.host, tc.path))
		value, attrs := setCookie(r.header, "e2eroute")
		if r.err != nil || r.status != http.StatusOK || value == "" {
			t.Errorf("GET %s%s: %d %v, cookie %q, want 200 with the affinity cookie", tc.host, tc.path, r.status, r.err, value)
			continue
		}
		if got := cookieAttr(attrs, "Path"); got != tc.wantPath {
			t.Errorf("GET %s%s: cookie Path %q, want %q (attributes %q)", tc.host, tc.path, got, tc.wantPath, attrs)
		}
	}

	// The other Ingress's location: no cookie for a new client …
	for range 10 {
		r := send(c, n.request("plain.example.com", "/"))
		if r.err != nil || r.status != http.StatusOK {
			t.Fatalf("GET plain.example.com: %d %v", r.status, r.err)
		}
		if v, _ := setCookie(r.header, "e2eroute"); v != "" {
			t.Fatalf("GET plain.example.com/: Set-Cookie e2eroute=%s, want none (affinity is another Ingress's)", v)
		}
	}
	// … but a client bound by the sticky location stays on its endpoint.
	r := send(c, n.request("sticky.example.com", "/app"))
	cookie, _ := setCookie(r.header, "e2eroute")
	ta := newTally()
	for range 30 {
		ta.add(send(c, n.request("plain.example.com", "/", "Cookie", "e2eroute="+cookie)))
	}
	if ta.byName[r.backend] != 30 {
		t.Errorf("30 requests to plain.example.com with the cookie of %s: %s, want all there", r.backend, ta)
	}
}
