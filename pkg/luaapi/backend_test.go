package luaapi

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestBackendJSONFieldNames(t *testing.T) {
	b := Backend{
		Name:      "ns-svc-80",
		Service:   &Service{Metadata: ServiceMetadata{Name: "svc", Namespace: "ns"}},
		Port:      "80",
		Endpoints: []Endpoint{{Address: "10.0.0.1", Port: "8080"}},
		SessionAffinity: SessionAffinityConfig{
			Name: "cookie",
			Mode: "balanced",
			CookieSessionAffinity: CookieSessionAffinity{
				Name: "route", Expires: "3600", MaxAge: "7200", Path: "/", Domain: "example.com",
				Secure: true, SameSite: "None", ConditionalSameSiteNone: true, ChangeOnFailure: true,
			},
		},
		UpstreamHashBy:       UpstreamHashByConfig{UpstreamHashBy: "$request_uri", UpstreamHashBySubset: true, UpstreamHashBySubsetSize: 3},
		LoadBalance:          "ewma",
		NoServer:             true,
		TrafficShapingPolicy: TrafficShapingPolicy{Weight: 10, WeightTotal: 100, Header: "X-Canary", HeaderValue: "yes", HeaderPattern: "^y", Cookie: "canary"},
		AlternativeBackends:  []string{"ns-canary-80"},
	}
	got, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"ns-svc-80","service":{"metadata":{"name":"svc","namespace":"ns"},"spec":{}},"port":80,` +
		`"sslPassthrough":false,"endpoints":[{"address":"10.0.0.1","port":"8080"}],` +
		`"sessionAffinityConfig":{"name":"cookie","mode":"balanced","cookieSessionAffinity":{"name":"route",` +
		`"expires":"3600","maxage":"7200","path":"/","domain":"example.com","secure":true,"samesite":"None",` +
		`"conditional_samesite_none":true,"change_on_failure":true}},` +
		`"upstreamHashByConfig":{"upstream-hash-by":"$request_uri","upstream-hash-by-subset":true,"upstream-hash-by-subset-size":3},` +
		`"load-balance":"ewma","noServer":true,` +
		`"trafficShapingPolicy":{"weight":10,"weightTotal":100,"header":"X-Canary","headerValue":"yes","headerPattern":"^y","cookie":"canary"},` +
		`"alternativeBackends":["ns-canary-80"]}`
	if string(got) != want {
		t.Errorf("encoding:\n got %s\nwant %s", got, want)
	}

	var back Backend
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	again, err := json.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != want {
		t.Errorf("round trip:\n got %s\nwant %s", again, want)
	}
}

func TestBackendZeroValueEncoding(t *testing.T) {
	got, err := json.Marshal(Backend{Name: "upstream-default-backend"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"upstream-default-backend","port":0,"sslPassthrough":false,"endpoints":[],` +
		`"sessionAffinityConfig":{"name":"","mode":"","cookieSessionAffinity":{"name":""}},` +
		`"upstreamHashByConfig":{},"noServer":false,` +
		`"trafficShapingPolicy":{"weight":0,"weightTotal":0,"header":"","headerValue":"","headerPattern":"","cookie":""},` +
		`"alternativeBackends":[]}`
	if string(got) != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	// A slice of backends and a pointer encode the same way.
	list, err := json.Marshal([]*Backend{{Name: "upstream-default-backend"}})
	if err != nil {
		t.Fatal(err)
	}
	if string(list) != "["+want+"]" {
		t.Errorf("list:\n got %s", list)
	}
}

func TestPortJSON(t *testing.T) {
	for _, tc := range []struct {
		port Port
		json string
	}{
		{"80", `80`},
		{"http", `"http"`},
		{"", `0`},
		{"web-8080", `"web-8080"`},
	} {
		got, err := json.Marshal(tc.port)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.json {
			t.Errorf("Marshal(%q) = %s, want %s", tc.port, got, tc.json)
		}
		var back Port
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		if back != tc.port {
			t.Errorf("Unmarshal(%s) = %q, want %q", got, back, tc.port)
		}
	}
	var p Port
	if err := json.Unmarshal([]byte(`"8080"`), &p); err != nil || p != "8080" {
		t.Errorf(`Unmarshal("8080") = %q, %v`, p, err)
	}
	for _, bad := range []string{`true`, `1.5`, `{}`} {
		if err := json.Unmarshal([]byte(bad), &p); err == nil {
			t.Errorf("Unmarshal(%s): no error", bad)
		}
	}
	if n, ok := Port("443").Number(); !ok || n != 443 {
		t.Errorf("Number(443) = %d, %v", n, ok)
	}
	if _, ok := Port("https").Number(); ok {
		t.Error("Number(https) ok")
	}
}

// A backend as ingress-nginx's controller posts it (a whole Service, an
// AlternativeBackends list left out when empty) decodes.
func TestDecodeIngressNGINXBackend(t *testing.T) {
	in := `[{"name":"default-echo-80","service":{"metadata":{"name":"echo","namespace":"default",
	"uid":"x","creationTimestamp":null},"spec":{"ports":[{"port":80}],"clusterIP":"10.96.0.10","type":"ClusterIP"},
	"status":{"loadBalancer":{}}},"port":80,"sslPassthrough":false,"endpoints":[{"address":"10.244.0.5","port":"8080"}],
	"sessionAffinityConfig":{"name":"","mode":"","cookieSessionAffinity":{"name":""}},"upstreamHashByConfig":
	{"upstream-hash-by-subset-size":3},"noServer":false,"trafficShapingPolicy":{"weight":0,"weightTotal":0,
	"header":"","headerValue":"","headerPattern":"","cookie":""}}]`
	var bs []Backend
	if err := json.Unmarshal([]byte(in), &bs); err != nil {
		t.Fatal(err)
	}
	if len(bs) != 1 || bs[0].Service.Metadata.Name != "echo" || bs[0].Service.Spec.Type != "ClusterIP" ||
		bs[0].Port != "80" || bs[0].Endpoints[0].Port != "8080" || bs[0].UpstreamHashBy.UpstreamHashBySubsetSize != 3 {
		t.Errorf("decoded %+v", bs)
	}
	out, err := json.Marshal(bs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"alternativeBackends":[]`) {
		t.Errorf("missing list not written as []: %s", out)
	}
}

func TestServersEncoding(t *testing.T) {
	got, err := json.Marshal(Servers{})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"servers":{},"certificates":{}}` {
		t.Errorf("empty Servers = %s", got)
	}
	s := Servers{
		Servers:      map[string]string{"b.example.com": "ns/tls", "a.example.com": "ns/tls"},
		Certificates: map[string]string{"ns/tls": "PEM"},
	}
	got, err = json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"servers":{"a.example.com":"ns/tls","b.example.com":"ns/tls"},"certificates":{"ns/tls":"PEM"}}`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestServersRedacted(t *testing.T) {
	s := Servers{
		Servers:      map[string]string{"a.example.com": "ns/tls"},
		Certificates: map[string]string{"ns/tls": "-----BEGIN PRIVATE KEY-----secret"},
	}
	got, err := json.Marshal(s.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "secret") || strings.Contains(string(got), "PRIVATE") {
		t.Fatalf("redacted view holds the PEM: %s", got)
	}
	// sha256 of the PEM above
	want := `{"servers":{"a.example.com":"ns/tls"},"certificateChecksums":{"ns/tls":"` +
		sha256Hex("-----BEGIN PRIVATE KEY-----secret") + `"}}`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
