package annotations

import (
	"strings"
	"testing"
)

type valueCase struct {
	in   string
	want string // "" with ok: the input itself
	ok   bool
}

func runValueCases(t *testing.T, name string, f func(string) (string, error), cases []valueCase) {
	t.Helper()
	for _, c := range cases {
		got, err := f(c.in)
		if c.ok != (err == nil) {
			t.Errorf("%s(%q): err = %v, want ok=%v", name, c.in, err, c.ok)
			continue
		}
		want := c.want
		if c.ok && want == "" {
			want = c.in
		}
		if c.ok && got != want {
			t.Errorf("%s(%q) = %q, want %q", name, c.in, got, want)
		}
		if err != nil && err.Error() == "" {
			t.Errorf("%s(%q): empty error", name, c.in)
		}
	}
}

func TestValueSize(t *testing.T) {
	runValueCases(t, "valueSize", valueSize, []valueCase{
		{in: "0", ok: true}, {in: "512", ok: true}, {in: "8k", ok: true}, {in: "8K", ok: true},
		{in: "1m", ok: true}, {in: "1M", ok: true}, {in: "2g", ok: true}, {in: "999999999G", ok: true},
		{in: ""}, {in: "k"}, {in: "1.5m"}, {in: "1mb"}, {in: "1 m"}, {in: "-1"}, {in: "+1"},
		{in: "1t"}, {in: "1234567890"}, {in: "1m;"}, {in: "1m\n"},
	})
}

func TestValueInt(t *testing.T) {
	for _, c := range []struct {
		in       string
		min, max int
		want     int
		ok       bool
	}{
		{"0", 0, 10, 0, true}, {"10", 0, 10, 10, true}, {"007", 0, 10, 7, true},
		{"11", 0, 10, 0, false}, {"0", 1, 10, 0, false}, {"-1", -5, 10, 0, false}, {"+1", 0, 10, 0, false},
		{"1e3", 0, 5000, 0, false}, {"", 0, 1, 0, false}, {" 1", 0, 1, 0, false},
		{"99999999999", 0, MaxInt32, 0, false}, {"2147483647", 0, MaxInt32, MaxInt32, true}, {"2147483648", 0, MaxInt32, 0, false},
	} {
		got, err := valueInt(c.in, c.min, c.max)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("valueInt(%q, %d, %d) = %d, %v", c.in, c.min, c.max, got, err)
		}
	}
}

func TestValueSeconds(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int // 0: invalid
	}{
		{"1", 1}, {"60", 60}, {"2147483", 2147483}, {"2147484", 0}, {"0", 0}, {"-5", 0},
		{"60s", 60}, {"5s", 5}, {"1m", 60}, {"2h", 7200}, {"2147483s", 2147483}, {"35791m", 2147460},
		{"35792m", 0}, {"0s", 0}, {"s", 0}, {"60 s", 0}, {"60S", 0}, {"1d", 0}, {"500ms", 0}, {"1m30s", 0}, {"+5s", 0},
	} {
		got, err := valueSeconds(c.in)
		if (err == nil) != (c.want != 0) || got != c.want {
			t.Errorf("valueSeconds(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

func TestValueBoolAndOnOff(t *testing.T) {
	for in, want := range map[string]bool{"true": true, "True": true, "1": true, "t": true, "false": false, "0": false, "F": false} {
		if got, err := valueBool(in); err != nil || got != want {
			t.Errorf("valueBool(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"yes", "on", "", "true;"} {
		if _, err := valueBool(in); err == nil {
			t.Errorf("valueBool(%q) accepted", in)
		}
	}
	for in, want := range map[string]bool{"on": true, "ON": true, "Off": false, "off": false} {
		if got, err := valueOnOff(in); err != nil || got != want {
			t.Errorf("valueOnOff(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"true", "1", "", "on;"} {
		if _, err := valueOnOff(in); err == nil {
			t.Errorf("valueOnOff(%q) accepted", in)
		}
	}
}

func TestValueOneOf(t *testing.T) {
	if got, err := valueOneOf("lax", true, "None", "Lax", "Strict"); err != nil || got != "Lax" {
		t.Errorf("fold: %q %v", got, err)
	}
	if _, err := valueOneOf("lax", false, "None", "Lax", "Strict"); err == nil || err.Error() != `must be one of "None", "Lax" or "Strict"` {
		t.Errorf("exact: %v", err)
	}
	if _, err := valueOneOf("x", false, "cookie"); err == nil || err.Error() != `must be one of "cookie"` {
		t.Errorf("single: %v", err)
	}
}

func TestValueHostname(t *testing.T) {
	runValueCases(t, "valueHostname", func(v string) (string, error) { return valueHostname(v, false) }, []valueCase{
		{in: "example.com", ok: true}, {in: "WWW.Example.COM", want: "www.example.com", ok: true},
		{in: "a-b.c1.example", ok: true}, {in: "localhost", ok: true}, {in: "10.0.0.1", ok: true},
		{in: strings.Repeat("a", 63) + ".com", ok: true},
		{in: strings.Repeat("a", 64) + ".com"}, {in: strings.Repeat("a.", 127) + "com"},
		{in: ""}, {in: "*.example.com"}, {in: "-a.com"}, {in: "a-.com"}, {in: "a..com"}, {in: ".a.com"},
		{in: "a.com."}, {in: "a_b.com"}, {in: "a b.com"}, {in: "a.com;"}, {in: "a.com:80"}, {in: "ü.com"},
	})
	runValueCases(t, "valueHostname(wildcard)", func(v string) (string, error) { return valueHostname(v, true) }, []valueCase{
		{in: "*.example.com", ok: true}, {in: "*.Example.com", want: "*.example.com", ok: true}, {in: "example.com", ok: true},
		{in: "*"}, {in: "*."}, {in: "a.*.com"}, {in: "*example.com"}, {in: "**.example.com"}, {in: "*.*.example.com"},
	})
}

func TestValueHostPort(t *testing.T) {
	runValueCases(t, "valueHostPort", valueHostPort, []valueCase{
		{in: "backend.internal", ok: true}, {in: "Backend.internal:8080", want: "backend.internal:8080", ok: true},
		{in: "backend:0"}, {in: "backend:65536"}, {in: "backend:"}, {in: ":80"}, {in: "a:b:c"},
		{in: "*.example.com"}, {in: "host/path"}, {in: "$host"}, {in: "host;"},
	})
}

func TestValueRedirectURL(t *testing.T) {
	runValueCases(t, "valueRedirectURL", valueRedirectURL, []valueCase{
		{in: "https://example.com", ok: true}, {in: "http://example.com/", ok: true},
		{in: "https://example.com:8443/a/b?c=d&e=f%20g#frag", ok: true}, {in: "https://10.0.0.1/", ok: true},
		{in: "https://[2001:db8::1]/", ok: true}, {in: "HTTPS://example.com/", ok: true},
		{in: ""}, {in: "/path"}, {in: "//example.com/"}, {in: "example.com"}, {in: "ftp://example.com/"},
		{in: "mailto:a@example.com"}, {in: "https:example.com"}, {in: "https://"}, {in: "https://:80/"},
		{in: "https://u:p@example.com/"}, {in: "https://a_b.com/"}, {in: "https://example.com:99999/"},
		{in: "https://[fe80::1%25eth0]/"},
		{in: "https://example.com/$request_uri"}, {in: "https://example.com/a;b"}, {in: "https://example.com/{x}"},
		{in: "https://example.com/\"x"}, {in: "https://example.com/'x"}, {in: "https://example.com/a b"},
		{in: "https://example.com/\nx"}, {in: "https://example.com/\x00"}, {in: "https://example.com/\\x"},
		{in: "https://example.com/é"}, {in: "https://example.com/" + strings.Repeat("a", valueMaxLen)},
	})
}

func TestValuePath(t *testing.T) {
	runValueCases(t, "valuePath(slash)", func(v string) (string, error) { return valuePath(v, true) }, []valueCase{
		{in: "/", ok: true}, {in: "/app1", ok: true}, {in: "/a/b-c_d.e~f%20?x=y&z=(1)*+,:@!", ok: true},
		{in: ""}, {in: "app"}, {in: "https://example.com/"}, {in: "/a$b"}, {in: "/a;b"}, {in: "/a{b}"},
		{in: "/a b"}, {in: "/a\tb"}, {in: "/a\"b"}, {in: "/a'b"}, {in: "/a\\b"}, {in: "/a#b"}, {in: "/a[b]"},
		{in: "/a<b>"}, {in: "/a|b"}, {in: "/a^b"}, {in: "/a`b"}, {in: "/\x00"},
	})
	runValueCases(t, "valuePath", func(v string) (string, error) { return valuePath(v, false) }, []valueCase{
		{in: "prefix", ok: true}, {in: "/prefix", ok: true}, {in: "a$"}, {in: ""},
	})
}

func TestValueRewriteTarget(t *testing.T) {
	runValueCases(t, "valueRewriteTarget", valueRewriteTarget, []valueCase{
		{in: "/", ok: true}, {in: "/$1", ok: true}, {in: "/$2/$1", ok: true}, {in: "$1", ok: true},
		{in: "/api$9x", ok: true}, {in: "/$12", ok: true}, {in: "https://other.example.com/$1", ok: true},
		{in: "/a?b=$1&c", ok: true},
		{in: ""}, {in: "/$"}, {in: "/$0"}, {in: "/$a"}, {in: "/$host"}, {in: "/${1}"}, {in: "/$1;"},
		{in: "/$1 break"}, {in: "/a\"b"}, {in: "/a}b"}, {in: "/a\nb"}, {in: "/a\\1"},
	})
}

func TestValueHashBy(t *testing.T) {
	runValueCases(t, "valueHashBy", valueHashBy, []valueCase{
		{in: "$request_uri", ok: true}, {in: "$request_uri$host", ok: true}, {in: "${request_uri}-text-value", ok: true},
		{in: "$http_x_user_id", ok: true}, {in: "$cookie_session:/v1.2_x-y", ok: true}, {in: "constant", ok: true},
		{in: ""}, {in: "$"}, {in: "$$x"}, {in: "$1"}, {in: "${x"}, {in: "${}"}, {in: "${x y}"}, {in: "$x y"},
		{in: "$x;"}, {in: "$x}"}, {in: "$x\""}, {in: "$x\\"}, {in: "$x\n"}, {in: "$x,$y"}, {in: "$x|$y"},
		{in: strings.Repeat("$x", 200)},
	})
}

func TestValueToken(t *testing.T) {
	runValueCases(t, "valueToken", valueToken, []valueCase{
		{in: "X-Canary", ok: true}, {in: "INGRESSCOOKIE", ok: true}, {in: "a_b.c~d!#%&*+^|", ok: true},
		{in: ""}, {in: "a b"}, {in: "a:b"}, {in: "a=b"}, {in: "a,b"}, {in: "a;b"}, {in: "a\"b"}, {in: "a$b"},
		{in: "a'b"}, {in: "a`b"}, {in: "a(b)"}, {in: "a/b"}, {in: "a@b"}, {in: "a{b}"}, {in: "a\\b"},
		{in: "a\x00"}, {in: "é"}, {in: strings.Repeat("a", 257)},
	})
}

func TestValueHeaderValue(t *testing.T) {
	runValueCases(t, "valueHeaderValue", valueHeaderValue, []valueCase{
		{in: "always", ok: true}, {in: "v2 beta", ok: true}, {in: "a=b,c:d/e", ok: true},
		{in: "a;b"}, {in: "a\"b"}, {in: "a$b"}, {in: "a{b"}, {in: "a\\b"}, {in: "a\tb"}, {in: "a\nb"},
		{in: "a\x00"}, {in: "é"}, {in: strings.Repeat("a", 1025)},
	})
}

func TestValueRegexp(t *testing.T) {
	runValueCases(t, "valueRegexp", valueRegexp, []valueCase{
		{in: "^v[0-9]+$", ok: true}, {in: "(?i)beta|canary", ok: true}, {in: `a\.b`, ok: true},
		{in: "("}, {in: `(a)\1`}, {in: "(?=x)"}, {in: "a\nb"}, {in: "a\x00"}, {in: "a\x7f"},
		{in: strings.Repeat("a", 1025)},
	})
}

func TestValueOrigin(t *testing.T) {
	runValueCases(t, "valueOrigin", valueOrigin, []valueCase{
		{in: "*", ok: true}, {in: "https://example.com", ok: true}, {in: "http://example.com:8080", ok: true},
		{in: "https://*.example.com", ok: true}, {in: "HTTPS://Example.COM:443", want: "https://example.com:443", ok: true},
		{in: "test://localhost", ok: true}, {in: "tauri://localhost:3000", ok: true}, {in: "Capacitor://LocalHost", want: "capacitor://localhost", ok: true},
		{in: "ftp://example.com", ok: true}, {in: "a+b.c-d://x.y", ok: true},
		{in: ""}, {in: "example.com"}, {in: "1http://example.com"}, {in: "ht$tp://example.com"}, {in: "://example.com"}, {in: "https://example.com/"},
		{in: "https://example.com/path"}, {in: "https://example.com:0"}, {in: "https://example.com:x"},
		{in: "https://a.*.com"}, {in: "https://*"}, {in: "null"}, {in: "https://exa mple.com"},
		{in: "https://example.com;"}, {in: "https://$host"}, {in: "https://example.com\""},
	})
}

func TestValueCIDR(t *testing.T) {
	runValueCases(t, "valueCIDR", valueCIDR, []valueCase{
		{in: "10.0.0.0/8", ok: true}, {in: "10.1.2.3/8", want: "10.0.0.0/8", ok: true},
		{in: "192.168.1.7", want: "192.168.1.7/32", ok: true}, {in: "0.0.0.0/0", ok: true},
		{in: "2001:db8::1", want: "2001:db8::1/128", ok: true}, {in: "2001:DB8::1/32", want: "2001:db8::/32", ok: true},
		{in: ""}, {in: "10.0.0.0/33"}, {in: "10.0.0.256"}, {in: "10.0.0"}, {in: "localhost"},
		{in: "fe80::1%eth0"}, {in: "10.0.0.0/8;"}, {in: "10.0.0.0 /8"}, {in: "010.0.0.1"},
	})
}

func TestValueServiceName(t *testing.T) {
	runValueCases(t, "valueServiceName", valueServiceName, []valueCase{
		{in: "svc", ok: true}, {in: "my-svc-2", ok: true}, {in: strings.Repeat("a", 63), ok: true},
		{in: ""}, {in: "Svc"}, {in: "1svc"}, {in: "svc-"}, {in: "ns/svc"}, {in: "svc.ns"},
		{in: strings.Repeat("a", 64)}, {in: "svc;"},
	})
}

func TestValueMIMEType(t *testing.T) {
	runValueCases(t, "valueMIMEType", valueMIMEType, []valueCase{
		{in: "*", ok: true}, {in: "text/plain", ok: true}, {in: "application/vnd.ms-fontobject", ok: true},
		{in: "application/x-web-app-manifest+json", ok: true},
		{in: "application/" + strings.Repeat("x", 34), ok: true}, // 46 bytes
		{in: "application/" + strings.Repeat("x", 35)},           // 47: nginx's types hash refuses it
		{in: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
		{in: ""}, {in: "text"}, {in: "text/"}, {in: "/plain"}, {in: "text/plain;"}, {in: "text/plain,text/css"},
		{in: "text/pla$n"}, {in: "a/b/c"},
	})
}

func TestValueQuote(t *testing.T) {
	if got := ValueQuote("a\nb\x00"); got != `"a\nb\x00"` {
		t.Errorf("got %s", got)
	}
	long := strings.Repeat("é", 100)
	got := ValueQuote(long)
	if !strings.HasSuffix(got, "…") || len(got) > 90 || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("long value: %s", got)
	}
}

func TestValueList(t *testing.T) {
	got := valueList(" a, ,b ,, c ")
	if strings.Join(got, "|") != "a|b|c" {
		t.Errorf("got %q", got)
	}
	if valueList(" , ") != nil {
		t.Errorf("empty list must be nil")
	}
}

func TestValueBufferSize(t *testing.T) {
	runValueCases(t, "valueBufferSize", valueBufferSize, []valueCase{
		{in: "1", ok: true}, {in: "512", ok: true}, {in: "4k", ok: true}, {in: "16K", ok: true}, {in: "1m", ok: true},
		{in: "1024m", ok: true}, {in: "1048576k", ok: true}, {in: "999999999", ok: true}, {in: "1024M", ok: true},
		{in: "1025m"}, {in: "2048m"}, {in: "1048577k"}, {in: "999999999m"}, {in: "999999999k"},
		{in: "0"}, {in: "0k"}, {in: "1g"}, {in: "2G"}, {in: ""}, {in: "k"}, {in: "1.5k"}, {in: "4kb"}, {in: "4k;"},
	})
}
