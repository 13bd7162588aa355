package luaapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func smallModel() *model.Config {
	g := model.DefaultGlobal()
	return &model.Config{
		Global: g,
		Servers: []model.Server{
			{Hostname: "_"},
			{Hostname: "a.example.com", CertificateID: "team/a-tls", Aliases: []string{"www.a.example.com", "b.example.com", "uncovered.example.net"}},
			{Hostname: "b.example.com", CertificateID: "team/b-tls"},
			{Hostname: "plain.example.com", Aliases: []string{"alias.plain.example.com"}},
			{Hostname: "*.wild.example.com", CertificateID: "team/wild-tls"},
		},
		Backends: []model.Backend{
			{
				Name:      "team-web-80",
				Service:   model.ObjectRef{Kind: "Service", Namespace: "team", Name: "web"},
				Port:      "80",
				Endpoints: []model.Endpoint{{Address: "10.0.0.1", Port: 8080}, {Address: "10.0.0.2", Port: 8080}},
				SessionAffinity: model.SessionAffinity{Type: "cookie", Mode: "persistent",
					Cookie: model.SessionCookie{Name: "route", Path: "/app", ChangeOnFailure: true}},
				AlternativeBackends: []string{"team-web-canary-http"},
			},
			{
				Name:           "team-web-canary-http",
				Service:        model.ObjectRef{Kind: "Service", Namespace: "team", Name: "web-canary"},
				Port:           "http",
				LoadBalance:    "ewma",
				NoServer:       true,
				TrafficShaping: model.TrafficShaping{Weight: 20, WeightTotal: 100, Header: "X-Canary"},
				UpstreamHashBy: model.UpstreamHashBy{Expression: "$remote_addr", Subset: true, SubsetSize: 3},
			},
			{
				Name:         "team-ext-443",
				Service:      model.ObjectRef{Kind: "Service", Namespace: "team", Name: "ext"},
				Port:         "443",
				ExternalName: "api.example.org",
				Endpoints:    []model.Endpoint{{Address: "api.example.org", Port: 443}},
			},
			{Name: model.DefaultBackendName},
		},
		Certificates: []model.Certificate{
			{ID: "team/a-tls", PEM: "PEM-A", Hosts: []string{"*.a.example.com", "a.example.com", "b.example.com"}},
			{ID: "team/b-tls", PEM: "PEM-B"},
			{ID: "team/wild-tls", PEM: "PEM-W"},
		},
	}
}

func TestFromModelBackends(t *testing.T) {
	backends, _ := FromModel(smallModel())
	var names []string
	for _, b := range backends {
		names = append(names, b.Name)
	}
	if want := []string{"team-web-80", "team-web-canary-http", "team-ext-443", "upstream-default-backend"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("order %v, want %v", names, want)
	}

	web := backends[0]
	if web.Service == nil || web.Service.Metadata != (ServiceMetadata{Name: "web", Namespace: "team"}) || web.Service.Spec != (ServiceSpec{}) {
		t.Errorf("web service = %+v", web.Service)
	}
	if !reflect.DeepEqual(web.Endpoints, []Endpoint{{"10.0.0.1", "8080"}, {"10.0.0.2", "8080"}}) {
		t.Errorf("web endpoints = %+v", web.Endpoints)
	}
	if web.LoadBalance != "round_robin" {
		t.Errorf("web load-balance = %q, want the global round_robin", web.LoadBalance)
	}
	if web.SessionAffinity.Name != "cookie" || web.SessionAffinity.Mode != "persistent" ||
		!reflect.DeepEqual(web.SessionAffinity.CookieSessionAffinity, CookieSessionAffinity{Name: "route", Path: "/app", ChangeOnFailure: true}) {
		t.Errorf("web affinity = %+v", web.SessionAffinity)
	}
	if !reflect.DeepEqual(web.AlternativeBackends, []string{"team-web-canary-http"}) {
		t.Errorf("web alternatives = %v", web.AlternativeBackends)
	}

	canary := backends[1]
	if !canary.NoServer || canary.LoadBalance != "ewma" || canary.Port != "http" ||
		canary.TrafficShapingPolicy != (TrafficShapingPolicy{Weight: 20, WeightTotal: 100, Header: "X-Canary"}) ||
		canary.UpstreamHashBy != (UpstreamHashByConfig{"$remote_addr", true, 3}) {
		t.Errorf("canary = %+v", canary)
	}
	if canary.Endpoints == nil || canary.AlternativeBackends == nil {
		t.Error("canary lists are nil; want empty")
	}

	ext := backends[2]
	if ext.Service == nil || ext.Service.Spec != (ServiceSpec{Type: "ExternalName", ExternalName: "api.example.org"}) {
		t.Errorf("external service = %+v", ext.Service)
	}

	def := backends[3]
	if def.Service != nil {
		t.Errorf("default backend has a service: %+v", def.Service)
	}
	raw, err := json.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"upstream-default-backend","port":0,"sslPassthrough":false,"endpoints":[],` +
		`"sessionAffinityConfig":{"name":"","mode":"","cookieSessionAffinity":{"name":""}},"upstreamHashByConfig":{},` +
		`"load-balance":"round_robin","noServer":false,"trafficShapingPolicy":{"weight":0,"weightTotal":0,"header":"",` +
		`"headerValue":"","headerPattern":"","cookie":""},"alternativeBackends":[]}`
	if string(raw) != want {
		t.Errorf("default backend JSON\n got %s\nwant %s", raw, want)
	}
}

func TestFromModelServers(t *testing.T) {
	_, servers := FromModel(smallModel())
	wantServers := map[string]string{
		"a.example.com":     "team/a-tls",
		"www.a.example.com": "team/a-tls",
		"b.example.com":     "team/b-tls", // its own server wins over a's alias
		// uncovered.example.net is an alias of a.example.com that team/a-tls does not cover: no certificate
		"*.wild.example.com": "team/wild-tls",
	}
	if !reflect.DeepEqual(servers.Servers, wantServers) {
		t.Errorf("servers = %v, want %v", servers.Servers, wantServers)
	}
	wantCerts := map[string]string{"team/a-tls": "PEM-A", "team/b-tls": "PEM-B", "team/wild-tls": "PEM-W"}
	if !reflect.DeepEqual(servers.Certificates, wantCerts) {
		t.Errorf("certificates = %v", servers.Certificates)
	}
	if got := servers.Redacted().CertificateChecksums["team/a-tls"]; got != sha256Hex("PEM-A") {
		t.Errorf("checksum = %s", got)
	}
}

func TestFromModelEmptyAndDeterministic(t *testing.T) {
	backends, servers := FromModel(&model.Config{})
	b, err := json.Marshal(backends)
	if err != nil {
		t.Fatal(err)
	}
	s, err := json.Marshal(servers)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "[]" || string(s) != `{"servers":{},"certificates":{}}` {
		t.Errorf("empty model: backends %s servers %s", b, s)
	}

	first, _ := json.Marshal(must(FromModel(smallModel())))
	for range 20 {
		again, _ := json.Marshal(must(FromModel(smallModel())))
		if string(again) != string(first) {
			t.Fatal("FromModel encodes differently from one call to the next")
		}
	}
}

func must(b []Backend, s Servers) [2]any { return [2]any{b, s} }
