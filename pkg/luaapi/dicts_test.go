package luaapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestSlab(t *testing.T) {
	for _, c := range []struct {
		k, v int
		want int64
	}{
		{0, 0, 128},      // 72 bytes of node
		{10, 40, 128},    // 122
		{10, 50, 256},    // 132
		{10, 1966, 2048}, // 2048: half a page
		{10, 1967, 4096}, // above: whole pages
		{9, 8192, 12288}, // 8273: three pages
		{9, 1 << 20, 1<<20 + 4096},
	} {
		if got := slab(c.k, c.v); got != c.want {
			t.Errorf("slab(%d, %d) = %d, want %d", c.k, c.v, got, c.want)
		}
	}
}

func TestNeeds(t *testing.T) {
	backends := []Backend{
		{Name: "a", Endpoints: []Endpoint{{Address: "10.0.0.1", Port: "80"}}, Port: "http"},
		{Name: "b<&>\u2028", Service: &Service{Metadata: ServiceMetadata{Name: "b", Namespace: "ns"}}},
		{Name: "c", TrafficShapingPolicy: TrafficShapingPolicy{Weight: 10, HeaderPattern: `^a"b\`}},
	}
	data, err := json.Marshal(backends)
	if err != nil {
		t.Fatal(err)
	}
	servers := Servers{
		Servers:      map[string]string{"a.example.com": "ns/a", "_": "ns/a"},
		Certificates: map[string]string{"ns/a": strings.Repeat("x", 3000)},
	}
	got, err := Needs(backends, servers)
	if err != nil {
		t.Fatal(err)
	}
	want := DictSizes{
		ConfigurationData:  withOverhead(2 * slab(len("backends:")+20, len(data))),
		CertificateData:    withOverhead(2 * slab(len("ns/a"), 3000)),
		CertificateServers: withOverhead(2 * (slab(len("a.example.com"), 4) + slab(1, 4))),
	}
	if got != want {
		t.Errorf("Needs = %+v, want %+v (the backends JSON is %d bytes)", got, want, len(data))
	}
	if empty, err := Needs(nil, Servers{}); err != nil || empty.ConfigurationData != withOverhead(2*slab(29, 2)) {
		t.Errorf("Needs of nothing = %+v, %v", empty, err)
	}
}

func TestSizeDicts(t *testing.T) {
	const mib = 1 << 20
	def := DefaultDictSizes()
	for _, c := range []struct {
		name          string
		need, current int64
		want          int64
	}{
		{"small, nothing runs", 1 * mib, 0, 64 * mib},
		{"small, default runs", 1 * mib, 64 * mib, 64 * mib},
		{"grows to the next power of two", 70 * mib, 64 * mib, 128 * mib},
		{"36 MB of backends (73 MiB needed)", 73 * mib, 64 * mib, 128 * mib},
		{"grows by more than one step", 300 * mib, 64 * mib, 512 * mib},
		{"keeps a larger size that holds it", 60 * mib, 128 * mib, 128 * mib},
		{"keeps up to four times the new size", 10 * mib, 256 * mib, 256 * mib},
		{"shrinks past four times", 10 * mib, 512 * mib, 64 * mib},
		{"shrinks to what holds it", 100 * mib, 1024 * mib, 128 * mib},
		{"an odd size that holds it stays", 10 * mib, 65 * mib, 65 * mib},
		{"below the default grows to it", 1 * mib, 4 * mib, 64 * mib},
	} {
		got := SizeDicts(DictSizes{ConfigurationData: c.need}, DictSizes{ConfigurationData: c.current})
		if got.ConfigurationData != c.want {
			t.Errorf("%s: SizeDicts(need %d MiB, current %d MiB) = %d MiB, want %d MiB", c.name,
				c.need/mib, c.current/mib, got.ConfigurationData/mib, c.want/mib)
		}
		if got.CertificateData != def.CertificateData || got.CertificateServers != def.CertificateServers {
			t.Errorf("%s: the certificate dicts moved: %+v", c.name, got)
		}
	}
}

func TestDictSizesOf(t *testing.T) {
	conf := []byte(`http {
    lua_package_path "$prefix/lua/?.lua;;";
    lua_shared_dict configuration_data 128m;
    lua_shared_dict certificate_data 32768k;
    lua_shared_dict certificate_servers 8388608;
    lua_shared_dict balancer_ewma 10m;
    init_by_lua_block {
    }
    # lua_shared_dict configuration_data 1g; (after the block: not read)
}`)
	want := DictSizes{ConfigurationData: 128 << 20, CertificateData: 32 << 20, CertificateServers: 8 << 20}
	if got := DictSizesOf(conf); got != want {
		t.Errorf("DictSizesOf = %+v, want %+v", got, want)
	}
	if got := DictSizesOf(nil); got != (DictSizes{}) {
		t.Errorf("DictSizesOf(nil) = %+v", got)
	}
	if got := DictSizesOf([]byte("lua_shared_dict configuration_data 1g;")); got.ConfigurationData != 1<<30 {
		t.Errorf("1g = %d", got.ConfigurationData)
	}
	if got := DictSizesOf([]byte("lua_shared_dict configuration_data lots;")); got.ConfigurationData != 0 {
		t.Errorf("a bad size = %d, want 0", got.ConfigurationData)
	}
}

func TestClientReportsDroppedEntries(t *testing.T) {
	answer := `{"dropped":[{"kind":"backend","name":"ns-ext-80","index":3,"reason":"backends[3].endpoints[0].address: 127.1 is neither an IP address nor a DNS name","kept":false}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case PathBackends:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, answer)
		case PathServers:
			w.WriteHeader(http.StatusCreated) // ingress-nginx's answer: nothing
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c := NewClient(srv.URL, nil)
	ctx := t.Context()
	dropped, err := c.PostBackendsReport(ctx, []Backend{{Name: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 1 || dropped[0].Name != "ns-ext-80" || dropped[0].Index != 3 || dropped[0].Kind != DroppedBackend || dropped[0].Kept {
		t.Errorf("dropped = %+v", dropped)
	}
	if want := "backend ns-ext-80: backends[3].endpoints[0].address: 127.1 is neither an IP address nor a DNS name"; dropped[0].String() != want {
		t.Errorf("String() = %q, want %q", dropped[0].String(), want)
	}
	if err := c.PostBackends(ctx, nil); err != nil {
		t.Errorf("PostBackends with entries dropped = %v, want no error", err)
	}
	if dropped, err := c.PostServersReport(ctx, Servers{}); err != nil || dropped != nil {
		t.Errorf("PostServersReport with an empty answer = %v, %v", dropped, err)
	}
	kept := Dropped{Kind: DroppedCertificate, Name: "ns/a", Reason: "r", Kept: true}
	if !strings.Contains(kept.String(), "last accepted version") {
		t.Errorf("String() of a kept entry = %q", kept.String())
	}
}
