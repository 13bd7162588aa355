package nginxconf

import (
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func pagesLocation(path, ingress string, ep model.ErrorPages) model.Location {
	return model.Location{
		Path: path, PathType: model.PathPrefix, Backend: "shop-web-80",
		Ingress: model.ObjectRef{Kind: "Ingress", Namespace: "shop", Name: ingress}, Service: "web", ServicePort: "80",
		Settings: &model.LocationSettings{BackendProtocol: "HTTP", ErrorPages: ep},
	}
}

func pagesConfig(locs ...model.Location) *model.Config {
	return &model.Config{
		Global:         model.DefaultGlobal(),
		DefaultBackend: model.DefaultBackendName,
		Servers: []model.Server{
			{Hostname: model.CatchAllHost},
			{Hostname: "pages.example.com", Locations: locs},
		},
	}
}

// TestErrorPageLocations: one named location per default backend and
// code on a server, sorted, whatever the order and number of locations
// that use it; the built-in default backend's answers 404.
func TestErrorPageLocations(t *testing.T) {
	a := pagesLocation("/a", "a", model.ErrorPages{Codes: []int{404, 503}, Intercept: true, Backend: "shop-errors-80"})
	b := pagesLocation("/b", "b", model.ErrorPages{Codes: []int{404, 502}, Backend: "shop-errors-80"})
	c := pagesLocation("/c", "c", model.ErrorPages{Codes: []int{418}, Intercept: true, Backend: model.DefaultBackendName})
	d := pagesLocation("/d", "d", model.ErrorPages{})
	conf1, err := NGINXConf(pagesConfig(a, b, c, d), DefaultConfOptions())
	if err != nil {
		t.Fatal(err)
	}
	conf2, err := NGINXConf(pagesConfig(d, c, b, a), DefaultConfOptions())
	if err != nil {
		t.Fatal(err)
	}
	text := string(conf1)
	var named []string
	for _, line := range strings.Split(text, "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, `location "@custom_`) {
			named = append(named, l)
		}
	}
	want := []string{
		`location "@custom_shop-errors-80_404" {`,
		`location "@custom_shop-errors-80_502" {`,
		`location "@custom_shop-errors-80_503" {`,
		`location "@custom_upstream-default-backend_418" {`,
	}
	if strings.Join(named, "\n") != strings.Join(want, "\n") {
		t.Errorf("named locations:\n%s\nwant:\n%s", strings.Join(named, "\n"), strings.Join(want, "\n"))
	}
	// The order of the named locations depends on nothing but their names.
	if strings.Count(string(conf2), `location "@custom_`) != len(want) || !strings.Contains(string(conf2), strings.Join(want[:1], "")) {
		t.Errorf("the second order gives other named locations")
	}
	for _, s := range []string{
		"\t\t\treturn 404;\n\t\t}", // the built-in one
		"proxy_set_header X-Code 502;", "proxy_set_header X-Format $http_accept;", "proxy_set_header X-Ingress-Name $ingress_name;",
		`set $ingress_name "a";`, `error_page 503 = "@custom_shop-errors-80_503";`, `error_page 418 = "@custom_upstream-default-backend_418";`,
	} {
		if !strings.Contains(text, s) {
			t.Errorf("nginx.conf lacks %q", s)
		}
	}
	// b does not intercept; a and c do (a Prefix path is two locations).
	if n := strings.Count(text, "proxy_intercept_errors on;"); n != 4 {
		t.Errorf("%d proxy_intercept_errors, want 4 (a and c)", n)
	}
	// d has no error pages: no variables set for it.
	if n := strings.Count(text, "set $ingress_name"); n != 3*2 { // three Ingresses, a Prefix path is two locations each
		t.Errorf("%d set $ingress_name, want 6", n)
	}
	nginxAccepts(t, conf1)
}

// TestErrorPageFallbackHeaders: a location answered by the default-backend
// annotation's Service in place of a Service without endpoints sends
// X-Code 503 with its other headers, each once, upstream-vhost's Host kept.
func TestErrorPageFallbackHeaders(t *testing.T) {
	l := pagesLocation("/", "down", model.ErrorPages{Backend: "shop-sorry-80", Fallback: true})
	l.Backend = "shop-sorry-80"
	l.Settings.UpstreamVhost = "internal.example.com"
	conf, err := NGINXConf(pagesConfig(l), DefaultConfOptions())
	if err != nil {
		t.Fatal(err)
	}
	text := string(conf)
	start := strings.Index(text, "server_name \"pages.example.com\"")
	loc := text[start:]
	loc = loc[strings.Index(loc, "location \"/\" {"):]
	loc = loc[:strings.Index(loc, "\n\t\t}")]
	for _, s := range []string{"X-Code 503;", "X-Format $http_accept;", "X-Namespace $namespace;", "X-Service-Name $service_name;", `Host "internal.example.com";`, "X-Request-ID $req_id;"} {
		if n := strings.Count(loc, "proxy_set_header "+s); n != 1 {
			t.Errorf("proxy_set_header %s written %d times, want once", s, n)
		}
	}
	if strings.Contains(text, "@custom_") || strings.Contains(text, "error_page") {
		t.Errorf("a fallback without codes writes no error page")
	}
	nginxAccepts(t, conf)
}
