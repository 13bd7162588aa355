package annotations

import (
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func TestValueMirrorTarget(t *testing.T) {
	for _, tc := range []struct {
		in               string
		scheme, hostPort string
		uri, host        string
	}{
		{"https://test.env.com/$request_uri", "https", "test.env.com:443", "/$request_uri", "test.env.com"},
		{"http://10.0.0.1:8080$request_uri", "http", "10.0.0.1:8080", "$request_uri", "10.0.0.1"},
		{"http://Mirror.Example.com:81/copy?from=$host", "http", "mirror.example.com:81", "/copy?from=$host", "mirror.example.com"},
		{"http://[::1]:9000/x", "http", "[::1]:9000", "/x", "[::1]"},
		{"http://mirror", "http", "mirror:80", "", "mirror"},
	} {
		m, err := valueMirrorTarget(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if m.Scheme != tc.scheme || m.HostPort != tc.hostPort || m.URI != tc.uri || m.Host != tc.host {
			t.Errorf("%q: got %+v", tc.in, m)
		}
	}
}

// CVE-2025-1098: nothing in mirror-target or mirror-host may end the nginx
// token or reach a variable outside the allowlist.
func TestMirrorInjection(t *testing.T) {
	for _, bad := range []string{
		`http://a.com/"; return 200 "x`,
		"http://a.com/;proxy_pass http://evil",
		"http://a.com/{",
		"http://a.com/}",
		"http://a.com/ x",
		"http://a.com/\nx",
		"http://a.com/\tx",
		"http://a.com/$remote_addr",
		"http://a.com/${request_uri}",
		"http://a.com/$",
		"http://a.com/$request_urix",
		"http://a.com/$1",
		"http://$host/",
		"ftp://a.com/",
		"//a.com/",
		"http://user:pw@a.com/",
		"http://a.com:0/",
		"http://a.com:99999/",
		"http://a_b.com/",
		"http://a.com:/",
		"http://a.com\\@b.com/",
		"http://a.com/'x",
		"http://a.com/`x",
		"a.com/path",
	} {
		if m, err := valueMirrorTarget(bad); err == nil {
			t.Errorf("mirror-target %q accepted: %+v", bad, m)
		}
	}
	for _, bad := range []string{`a.com"`, "a.com;", "a.com{", "a .com", "a.com\n", "$host", "a.com:x"} {
		if _, err := valueHostPort(bad); err == nil {
			t.Errorf("mirror-host %q accepted", bad)
		}
	}
}

func TestParseMirrorAnnotations(t *testing.T) {
	ing := model.ObjectRef{Kind: "Ingress", Namespace: "ns", Name: "web"}
	got, ps := ParseIngress(ing, map[string]string{
		annotationPrefix + "mirror-target":       "http://10.0.0.9:8080$request_uri",
		annotationPrefix + "mirror-request-body": "off",
		annotationPrefix + "mirror-host":         "copy.example.com",
	})
	if len(ps) != 0 {
		t.Fatalf("problems: %v", ps)
	}
	m := got.Location.Mirror
	if m == nil || m.RequestBody || m.Host != "copy.example.com" || m.ID != MirrorID(ing) || len(m.ID) != 16 {
		t.Fatalf("mirror %+v", m)
	}
	got, ps = ParseIngress(ing, map[string]string{annotationPrefix + "mirror-target": "http://a.com/$remote_addr"})
	if got.Location.Mirror != nil || len(ps) != 1 || !strings.Contains(ps[0].Reason, "variables must be one of $args") {
		t.Fatalf("bad target: mirror %+v, problems %v", got.Location.Mirror, ps)
	}
	got, _ = ParseIngress(ing, map[string]string{annotationPrefix + "mirror-target": "https://a.com:8443/x"})
	if m := got.Location.Mirror; m == nil || !m.RequestBody || m.Host != "a.com" {
		t.Fatalf("defaults: %+v", m)
	}
}

func TestParseHeaders(t *testing.T) {
	hs, err := ParseHeaders(map[string]string{"X-B": "2", "X-A": " one $remote_addr ${http_x_y} "}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 2 || hs[0].Name != "X-A" || hs[0].Value != "one $remote_addr ${http_x_y}" || !hs[0].Vars {
		t.Fatalf("got %+v", hs)
	}
	// custom-headers: "$" is literal, anything visible goes.
	if _, err := ParseHeaders(map[string]string{"X-Cost": "$5 $remote_addr"}, false); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []map[string]string{
		{"X A": "1"},
		{"X:A": "1"},
		{`X"A`: "1"},
		{"X-A\n": "1"},
		{"": "1"},
		{"X-A": "a\nb"},
		{"X-A": "a\rb"},
		{"X-A": "a\x00b"},
		{"X-A": "é"},
	} {
		if _, err := ParseHeaders(bad, false); err == nil {
			t.Errorf("%q accepted (literal)", bad)
		}
	}
	for _, bad := range []string{"$request_body", "$kubectl_ingress_dollar", "${remote_addr", "$", "${a-b}", "$1", "$secret_var"} {
		if _, err := ParseHeaders(map[string]string{"X-A": "v " + bad}, true); err == nil {
			t.Errorf("variable %q accepted", bad)
		}
	}
}

func TestHeadersConfigKeys(t *testing.T) {
	cm := model.ObjectRef{Kind: "ConfigMap", Namespace: "ingress-nginx", Name: "c"}
	g, ps := ParseConfigMap(cm, map[string]string{
		"add-headers":                     "ingress-nginx/resp",
		"proxy-set-headers":               "req",
		"global-allowed-response-headers": "X-A, My-Header",
	})
	if len(ps) != 0 || g.AddHeaders != "ingress-nginx/resp" || g.ProxySetHeaders != "req" || len(g.AllowedResponseHeaders) != 2 {
		t.Fatalf("got %+v %v", g, ps)
	}
	if !AllowedResponseHeader(&g, "My-Header") || AllowedResponseHeader(&g, "my-header") {
		t.Fatal("AllowedResponseHeader")
	}
	for _, bad := range []string{"a/b/c", "A/b", "ns/", "/x", "a b", `a"`, "a;b"} {
		if _, ps := ParseConfigMap(cm, map[string]string{"add-headers": bad}); len(ps) != 1 {
			t.Errorf("add-headers %q: %v", bad, ps)
		}
	}
}

func TestCipherList(t *testing.T) {
	for _, ok := range []string{"ECDHE-RSA-AES128-GCM-SHA256:!aNULL", "HIGH:!aNULL:!MD5", "DEFAULT@SECLEVEL=1", "ALL:+RC4"} {
		if _, err := valueCipherList(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{`HIGH"; return 200 "x`, "HIGH;", "HIGH {", "HIGH MEDIUM", "HIGH\n", "$ssl", "HIGH'"} {
		if _, err := valueCipherList(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestFastCGIParams(t *testing.T) {
	ps, err := ParseFastCGIParams(map[string]string{"SCRIPT_FILENAME": "/home/www/scripts/php$fastcgi_script_name", "REDIRECT_STATUS": "200"})
	if err != nil || len(ps) != 2 || ps[0].Name != "REDIRECT_STATUS" {
		t.Fatalf("%+v %v", ps, err)
	}
	for _, bad := range []map[string]string{
		{"A B": "x"}, {"A;": "x"}, {"A": "x\ny"}, {"A": "$request_body"}, {"A": "$"},
	} {
		if _, err := ParseFastCGIParams(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	ing := model.ObjectRef{Kind: "Ingress", Namespace: "ns", Name: "php"}
	got, probs := ParseIngress(ing, map[string]string{
		annotationPrefix + "backend-protocol":         "fcgi",
		annotationPrefix + "fastcgi-index":            "index.php",
		annotationPrefix + "fastcgi-params-configmap": "php-params",
	})
	if len(probs) != 0 || got.Backend.Protocol != "FCGI" || got.FastCGIIndex != "index.php" || got.FastCGIParams != "php-params" {
		t.Fatalf("%+v %v", got, probs)
	}
	if _, probs := ParseIngress(ing, map[string]string{annotationPrefix + "fastcgi-index": "a/b"}); len(probs) != 1 {
		t.Fatalf("fastcgi-index a/b: %v", probs)
	}
}
