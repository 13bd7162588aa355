package luaapi

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// modelBackend is the i-th of a set of model backends: affinity, ewma,
// canary or plain, in turn.
func modelBackend(i int) model.Backend {
	b := model.Backend{
		Name:      fmt.Sprintf("ns-svc%02d-80", i),
		Service:   model.ObjectRef{Kind: "Service", Namespace: "ns", Name: fmt.Sprintf("svc%02d", i)},
		Port:      "80",
		Endpoints: []model.Endpoint{{Address: fmt.Sprintf("10.0.0.%d", i), Port: 8080}},
	}
	switch i % 4 {
	case 1:
		b.SessionAffinity = model.SessionAffinity{Type: "cookie", Cookie: model.SessionCookie{Name: "route"},
			Locations: map[string][]string{fmt.Sprintf("h%d.example.com", i): {"/"}}}
	case 2:
		b.LoadBalance = "ewma"
	case 3:
		b.NoServer = true
		b.TrafficShaping = model.TrafficShaping{Weight: 10, WeightTotal: 100}
	}
	return b
}

// TestDictsCacheMatchesNeeds runs a DictsCache through a sequence of
// Configs, each a change of the one before, and checks after each that
// its need is exactly Needs(FromModel(cfg))'s, and that it encoded only
// the backends that changed.
func TestDictsCacheMatchesNeeds(t *testing.T) {
	backend := modelBackend
	cfg := &model.Config{Global: model.Global{LoadBalance: "round_robin"}}
	for i := range 20 {
		cfg.Backends = append(cfg.Backends, backend(i))
	}
	cfg.Servers = []model.Server{{Hostname: "a.example.com", CertificateID: "ns/tls"}, {Hostname: model.CatchAllHost}}
	cfg.Certificates = []model.Certificate{{ID: "ns/tls", PEM: "-----BEGIN CERTIFICATE-----"}}

	var dc DictsCache
	step := func(what string, c *model.Config, encoded int) {
		t.Helper()
		want, err := Needs(FromModel(c))
		if err != nil {
			t.Fatal(err)
		}
		got, err := dc.Needs(c)
		if err != nil || got != want {
			t.Fatalf("%s: need %+v, %v; want %+v", what, got, err, want)
		}
		if dc.Encoded != encoded {
			t.Errorf("%s: encoded %d backends, want %d", what, dc.Encoded, encoded)
		}
		if len(dc.entries) != len(c.Backends) {
			t.Errorf("%s: the cache holds %d backends, want %d", what, len(dc.entries), len(c.Backends))
		}
	}
	// change returns a copy of the last Config with its backends copied
	// (as render.Incremental hands the unchanged ones on) and f applied.
	change := func(f func(c *model.Config)) *model.Config {
		next := *cfg
		next.Backends = slices.Clone(cfg.Backends)
		f(&next)
		cfg = &next
		return cfg
	}
	step("first", cfg, 20)
	step("the same again", cfg, 0)
	step("an endpoint more", change(func(c *model.Config) {
		b := &c.Backends[3]
		b.Endpoints = append(slices.Clone(b.Endpoints), model.Endpoint{Address: "10.1.1.1", Port: 8080})
	}), 1)
	step("a longer cookie name", change(func(c *model.Config) { c.Backends[1].SessionAffinity.Cookie.Name = "a-much-longer-name" }), 1)
	step("another affinity path", change(func(c *model.Config) {
		c.Backends[5].SessionAffinity.Locations = map[string][]string{"h5.example.com": {"/", "/api"}}
	}), 1)
	step("a backend removed, one added", change(func(c *model.Config) {
		c.Backends = slices.Delete(c.Backends, 7, 8)
		c.Backends = append(c.Backends, backend(42))
	}), 1)
	step("the default load-balance", change(func(c *model.Config) { c.Global.LoadBalance = "ewma" }), 20)
	step("a new certificate", change(func(c *model.Config) {
		c.Certificates = []model.Certificate{{ID: "ns/tls", PEM: "-----BEGIN CERTIFICATE----- and more"}}
	}), 0)
	// the host entries, summed without maps or through them (aliases,
	// www redirects, a name twice), as the package's Needs counts them
	step("a default certificate", change(func(c *model.Config) { c.DefaultCertificate = "ns/default" }), 0)
	step("the catch-all with a certificate of its own", change(func(c *model.Config) {
		c.Servers = []model.Server{{Hostname: model.CatchAllHost, CertificateID: "ns/tls"}, {Hostname: "a.example.com", CertificateID: "ns/tls"}, {Hostname: "b.example.com"}}
	}), 0)
	step("an alias", change(func(c *model.Config) {
		c.Servers = []model.Server{{Hostname: model.CatchAllHost}, {Hostname: "a.example.com", CertificateID: "ns/wild", Aliases: []string{"b.example.com", "c.other.org"}}}
		c.Certificates = []model.Certificate{{ID: "ns/tls", PEM: "pem"}, {ID: "ns/wild", PEM: "wild pem", Hosts: []string{"*.example.com"}}}
	}), 0)
	step("a www redirect", change(func(c *model.Config) {
		c.Servers = []model.Server{{Hostname: model.CatchAllHost}, {Hostname: "www.example.com", CertificateID: "ns/tls"}}
		c.WWWRedirects = []model.WWWRedirect{{From: "example.com", To: "www.example.com", CertificateID: "ns/tls"}}
	}), 0)
	step("a hostname twice", change(func(c *model.Config) {
		c.WWWRedirects = nil
		c.Servers = []model.Server{{Hostname: model.CatchAllHost}, {Hostname: "a.example.com", CertificateID: "ns/tls"}, {Hostname: "a.example.com", CertificateID: "ns/wild"}}
	}), 0)
	step("a certificate ID twice", change(func(c *model.Config) {
		c.Servers = []model.Server{{Hostname: model.CatchAllHost}, {Hostname: "a.example.com", CertificateID: "ns/tls"}}
		c.Certificates = []model.Certificate{{ID: "ns/tls", PEM: "short"}, {ID: "ns/tls", PEM: "a longer one"}}
	}), 0)
	step("every backend gone", change(func(c *model.Config) { c.Backends = nil }), 0)

	// DictsFor through the cache is the package's DictsFor.
	running := DictSizes{ConfigurationData: 128 << 20, CertificateData: 32 << 20, CertificateServers: 8 << 20}
	cfg = change(func(c *model.Config) { c.Backends = []model.Backend{backend(1), backend(2)} })
	for _, r := range []DictSizes{{}, running} {
		want, werr := DictsFor(cfg, r)
		got, err := dc.DictsFor(cfg, r)
		if got != want || err != werr {
			t.Errorf("DictsFor against %+v: %+v, %v; want %+v, %v", r, got, err, want, werr)
		}
	}
}
