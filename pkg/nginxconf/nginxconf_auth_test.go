package nginxconf

import (
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func TestAuthSigninURL(t *testing.T) {
	const orig = "$pass_access_scheme://$http_host$escaped_request_uri"
	for _, tc := range []struct{ signin, param, want string }{
		{"http://$host/auth/start", "", "http://$host/auth/start?rd=" + orig},
		{"https://auth.example.com/?rm=$request_method", "orig", "https://auth.example.com/?rm=$request_method&orig=" + orig},
		// The URL sets the parameter: kept as it is.
		{"https://$host/oauth2/start?rd=$escaped_request_uri", "", "https://$host/oauth2/start?rd=$escaped_request_uri"},
		{"https://a.example.com/s?x=1&orig=$request_uri", "orig", "https://a.example.com/s?x=1&orig=$request_uri"},
		// Another parameter called rd does not count for orig.
		{"https://a.example.com/s?rd=x", "orig", "https://a.example.com/s?rd=x&orig=" + orig},
		{"https://a.example.com/s?", "", "https://a.example.com/s?rd=" + orig},
	} {
		if got := authSigninURL(tc.signin, tc.param); got != tc.want {
			t.Errorf("%q %q: got %q, want %q", tc.signin, tc.param, got, tc.want)
		}
	}
}

func authConfig(global model.ExternalAuth, locs ...model.Location) *model.Config {
	g := model.DefaultGlobal()
	g.GlobalAuth = global
	return &model.Config{
		Global:         g,
		DefaultBackend: model.DefaultBackendName,
		Servers: []model.Server{
			{Hostname: model.CatchAllHost},
			{Hostname: "auth.example.com", Locations: locs},
		},
	}
}

func authLocation(path string, st model.LocationSettings) model.Location {
	st.BackendProtocol = "HTTP"
	return model.Location{Path: path, PathType: model.PathPrefix, Backend: "shop-web-80",
		Ingress: model.ObjectRef{Kind: "Ingress", Namespace: "shop", Name: "web"}, Settings: &st}
}

// TestAuthOf: a location's own auth wins; the global one applies unless
// the location opts out, its path is one of no-auth-locations, or it
// never proxies.
func TestAuthOf(t *testing.T) {
	own := &model.ExternalAuth{URL: "http://10.0.0.1/own", Host: "10.0.0.1"}
	global := model.ExternalAuth{URL: "http://10.0.0.2/global", Host: "10.0.0.2"}
	c := authConfig(global)
	for _, tc := range []struct {
		name string
		l    model.Location
		want string
	}{
		{"global", authLocation("/", model.LocationSettings{}), global.URL},
		{"own", authLocation("/", model.LocationSettings{ExternalAuth: own}), own.URL},
		{"opt-out", authLocation("/", model.LocationSettings{GlobalAuthOff: true}), ""},
		{"opt-out keeps its own", authLocation("/", model.LocationSettings{GlobalAuthOff: true, ExternalAuth: own}), own.URL},
		{"no-auth-locations", authLocation("/.well-known/acme-challenge/x", model.LocationSettings{ExternalAuth: own}), ""},
		{"denied", authLocation("/", model.LocationSettings{ExternalAuth: own, Denied: "x"}), ""},
		{"redirect", authLocation("/", model.LocationSettings{Redirect: &model.Redirect{URL: "https://x", Code: 301}}), ""},
	} {
		got := ""
		if a := c.AuthOf(&tc.l); a != nil {
			got = a.URL
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	if a := authConfig(model.ExternalAuth{}).AuthOf(&model.Location{Path: "/", Settings: &model.LocationSettings{}}); a != nil {
		t.Errorf("no global auth: got %+v", a)
	}
}

// TestAuthResolver: the resolver line names the configured servers, IPv6
// in brackets; none is written without them.
func TestAuthResolver(t *testing.T) {
	c := authConfig(model.ExternalAuth{}, authLocation("/", model.LocationSettings{ExternalAuth: &model.ExternalAuth{
		URL: "http://oauth2-proxy.auth.svc.cluster.local/oauth2/auth", Host: "oauth2-proxy.auth.svc.cluster.local"}}))
	o := DefaultConfOptions()
	conf, err := NGINXConf(c, o)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(conf), "resolver") {
		t.Errorf("resolver without Resolvers")
	}
	o.Resolvers = []string{"10.96.0.10", "fd00::a", "not-an-ip", "fe80::1%eth0"}
	conf, err = NGINXConf(c, o)
	if err != nil {
		t.Fatal(err)
	}
	if want := "\tresolver \"10.96.0.10\" \"[fd00::a]\" valid=30s;\n"; !strings.Contains(string(conf), want) {
		t.Errorf("no %q in the config", want)
	}
	nginxAccepts(t, conf)
}

// TestAuthHeadersGRPC: a gRPC backend gets the auth service's headers
// through grpc_set_header.
func TestAuthHeadersGRPC(t *testing.T) {
	l := authLocation("/", model.LocationSettings{ExternalAuth: &model.ExternalAuth{
		URL: "http://10.0.0.1/auth", Host: "10.0.0.1", ResponseHeaders: []string{"X-User"}}})
	l.Settings.BackendProtocol = "GRPC"
	conf, err := NGINXConf(authConfig(model.ExternalAuth{}, l), DefaultConfOptions())
	if err != nil {
		t.Fatal(err)
	}
	if want := "grpc_set_header \"X-User\" $authHeader0;"; !strings.Contains(string(conf), want) {
		t.Errorf("no %q in the config", want)
	}
	nginxAccepts(t, conf)
}
