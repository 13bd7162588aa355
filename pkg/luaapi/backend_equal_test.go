package luaapi

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/internal/equaltest"
)

func fullBackend() Backend {
	return Backend{
		Name:           "ns-svc-80",
		Service:        &Service{Metadata: ServiceMetadata{Name: "svc", Namespace: "ns"}, Spec: ServiceSpec{Type: ServiceTypeExternalName, ExternalName: "ext.example.com"}},
		Port:           "80",
		SSLPassthrough: true,
		Endpoints:      []Endpoint{{Address: "10.0.0.1", Port: "8080"}},
		SessionAffinity: SessionAffinityConfig{Name: "cookie", Mode: "balanced", CookieSessionAffinity: CookieSessionAffinity{
			Name: "route", Expires: "1", MaxAge: "2", Path: "/", Domain: "d", Secure: true, SameSite: "Lax",
			ConditionalSameSiteNone: true, ChangeOnFailure: true, Locations: map[string][]string{"a.example.com": {"/"}},
		}},
		UpstreamHashBy:       UpstreamHashByConfig{UpstreamHashBy: "$request_uri", UpstreamHashBySubset: true, UpstreamHashBySubsetSize: 3},
		LoadBalance:          "ewma",
		NoServer:             true,
		TrafficShapingPolicy: TrafficShapingPolicy{Weight: 1, WeightTotal: 100, Header: "h", HeaderValue: "v", HeaderPattern: "p", Cookie: "c", HeaderPatternInvalid: true},
		AlternativeBackends:  []string{"ns-canary-80"},
	}
}

// TestBackendEqualSeesEveryField: a change of any one field, down to the
// leaves, is a difference Equal sees; and Equal backends encode alike.
func TestBackendEqualSeesEveryField(t *testing.T) {
	if tried := equaltest.EveryField(t, fullBackend, (*Backend).Equal); tried < 35 {
		t.Fatalf("only %d changes tried: the walk missed fields", tried)
	}
	// nil and empty lists encode alike, and Equal holds them equal.
	a, b := fullBackend(), fullBackend()
	a.Endpoints, b.Endpoints = nil, []Endpoint{}
	a.AlternativeBackends, b.AlternativeBackends = nil, []string{}
	ja, _ := json.Marshal(&a)
	jb, _ := json.Marshal(&b)
	if !a.Equal(&b) || !bytes.Equal(ja, jb) {
		t.Errorf("nil and empty lists: Equal %v, the same JSON %v; want both", a.Equal(&b), bytes.Equal(ja, jb))
	}
}
