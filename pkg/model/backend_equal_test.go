package model

import (
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/internal/equaltest"
)

// fullBackend has every field set, so that a change of any one of them
// is a difference Equal must see.
func fullBackend() Backend {
	return Backend{
		Name:           "ns-svc-80",
		Service:        ObjectRef{Kind: "Service", Namespace: "ns", Name: "svc"},
		Port:           "80",
		Endpoints:      []Endpoint{{Address: "10.0.0.1", Port: 8080}, {Address: "10.0.0.2", Port: 8080}},
		Protocol:       "HTTP",
		LoadBalance:    "ewma",
		UpstreamHashBy: UpstreamHashBy{Expression: "$request_uri", Subset: true, SubsetSize: 3},
		SessionAffinity: SessionAffinity{
			Type: "cookie", Mode: "balanced",
			Cookie: SessionCookie{Name: "route", Path: "/", Domain: "d", Expires: "1", MaxAge: "2",
				Secure: true, SameSite: "Lax", ConditionalSameSiteNone: true, ChangeOnFailure: true},
			Locations: map[string][]string{"a.example.com": {"/", "/x"}},
		},
		NoServer:            true,
		TrafficShaping:      TrafficShaping{Weight: 1, WeightTotal: 100, Header: "h", HeaderValue: "v", HeaderPattern: "p", Cookie: "c", HeaderPatternInvalid: true},
		AlternativeBackends: []string{"ns-canary-80"},
		ExternalName:        "ext.example.com",
	}
}

// TestBackendEqualSeesEveryField changes each field of a Backend, down to
// the leaves, one at a time, and checks that Equal tells the copy from
// the original.
func TestBackendEqualSeesEveryField(t *testing.T) {
	if tried := equaltest.EveryField(t, fullBackend, (*Backend).Equal); tried < 30 {
		t.Fatalf("only %d changes tried: the walk missed fields", tried)
	}
}

// TestBackendEqualNil: nil equals only nil.
func TestBackendEqualNil(t *testing.T) {
	b := fullBackend()
	var none *Backend
	if !none.Equal(nil) || b.Equal(nil) || none.Equal(&b) {
		t.Fatal("nil backends compare wrongly")
	}
}
