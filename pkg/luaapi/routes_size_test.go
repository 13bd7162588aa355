package luaapi

import (
	"fmt"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func manyRoutes(n int) []HostRoutes {
	c := routesModel()
	tmpl := c.Servers[2]
	var hosts []string
	for i := 0; i < n; i++ {
		s := tmpl
		s.Hostname = fmt.Sprintf("h%d.example.com", i)
		s.Locations = append([]model.Location(nil), tmpl.Locations...)
		s.Locations[0].Path = fmt.Sprintf("/v%d/(.*)", i)
		c.Servers = append(c.Servers, s)
		hosts = append(hosts, s.Hostname)
	}
	return RoutesFromModel(c, hosts)
}

func TestSizeRoutesDict(t *testing.T) {
	small, err := SizeRoutesDict(manyRoutes(10), 0)
	if err != nil || small != DefaultRoutesDict {
		t.Fatalf("10 hosts: %d, %v; want the default", small, err)
	}
	big, err := SizeRoutesDict(manyRoutes(50000), 0)
	if err != nil || big <= DefaultRoutesDict || big&(big-1) != 0 {
		t.Fatalf("50,000 hosts: %d, %v; want a larger power of two", big, err)
	}
	need, _ := RoutesNeeds(manyRoutes(50000))
	if big < need {
		t.Errorf("size %d < need %d", big, need)
	}
	// Hysteresis: a running larger dict stays while it is at most four
	// times the new size.
	if got, _ := SizeRoutesDict(manyRoutes(10), 32<<20); got != 32<<20 {
		t.Errorf("running 32m for 10 hosts: %d", got)
	}
	if got, _ := SizeRoutesDict(manyRoutes(10), 64<<20); got != DefaultRoutesDict {
		t.Errorf("running 64m for 10 hosts: %d, want the default again", got)
	}
}

func TestRegexCacheSize(t *testing.T) {
	if got := RegexCacheSize(manyRoutes(10), 0); got != DefaultRegexCache {
		t.Errorf("10 regexes: %d", got)
	}
	if got := RegexCacheSize(manyRoutes(3000), 0); got != 8192 {
		t.Errorf("3,001 regexes: %d, want 8192", got)
	}
	if got := RegexCacheSize(manyRoutes(3000), 16384); got != 16384 {
		t.Errorf("running 16384: %d", got)
	}
}

func TestRouterSizesOf(t *testing.T) {
	conf := []byte("http {\n\tlua_shared_dict configuration_data 64m;\n\tlua_shared_dict routes_data 16m;\n\tlua_regex_cache_max_entries 2048;\n")
	if got := RoutesDictSizeOf(conf); got != 16<<20 {
		t.Errorf("routes_data = %d", got)
	}
	if got := RegexCacheSizeOf(conf); got != 2048 {
		t.Errorf("regex cache = %d", got)
	}
	if RoutesDictSizeOf([]byte("http {}")) != 0 || RegexCacheSizeOf(nil) != 0 {
		t.Error("a classic nginx.conf has a router size")
	}
}
