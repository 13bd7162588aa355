package nginxconf

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

func TestServerName(t *testing.T) {
	for _, c := range []struct {
		host, name, sni string
		match, miss     []string
	}{
		{host: "foo.com", name: "foo.com", sni: "foo.com"},
		{host: "_", name: "_", sni: "_"},
		{
			host: "*.foo.com", name: `~^[\w-]+\.foo\.com$`, sni: `~*^[\w-]+\.foo\.com$`,
			match: []string{"bar.foo.com", "a-b.foo.com", "x1.foo.com"},
			miss:  []string{"baz.bar.foo.com", "foo.com", ".foo.com", "barfoo.com", "bar.fooxcom", "bar.foo.com.evil"},
		},
		{
			host: "*.a-b.example.org", name: `~^[\w-]+\.a-b\.example\.org$`, sni: `~*^[\w-]+\.a-b\.example\.org$`,
			match: []string{"x.a-b.example.org"}, miss: []string{"x.y.a-b.example.org"},
		},
	} {
		if got := serverName(c.host); got != c.name {
			t.Errorf("serverName(%q) = %q, want %q", c.host, got, c.name)
		}
		if got := sniMapKey(c.host); got != c.sni {
			t.Errorf("sniMapKey(%q) = %q, want %q", c.host, got, c.sni)
		}
		if len(c.match)+len(c.miss) == 0 {
			continue
		}
		// Go's regexp reads this subset of PCRE alike.
		re := regexp.MustCompile(strings.TrimPrefix(c.name, "~"))
		for _, h := range c.match {
			if !re.MatchString(h) {
				t.Errorf("%s does not match %q", c.name, h)
			}
		}
		for _, h := range c.miss {
			if re.MatchString(h) {
				t.Errorf("%s matches %q", c.name, h)
			}
		}
	}
}

// A wildcard host is a regex server_name, which nginx keeps out of its
// server name hash: it does not size the buckets.
func TestServerNamesHashLeavesOutRegexNames(t *testing.T) {
	long := "*." + strings.Repeat("a", 60) + ".example.com"
	for _, c := range []struct {
		name    string
		servers []model.Server
		want    []string
	}{
		{"exact only", []model.Server{{Hostname: "_"}, {Hostname: "foo.example.com"}},
			[]string{"server_names_hash_bucket_size 64;", "server_names_hash_max_size 1024;"}},
		{"a long wildcard", []model.Server{{Hostname: "_"}, {Hostname: long}},
			[]string{"server_names_hash_bucket_size 64;"}},
		{"a long wildcard alias", []model.Server{{Hostname: "_"}, {Hostname: "foo.example.com", Aliases: []string{long}}},
			[]string{"server_names_hash_bucket_size 64;"}},
		{"a long exact name", []model.Server{{Hostname: "_"}, {Hostname: long[2:]}},
			[]string{"server_names_hash_bucket_size 128;"}},
	} {
		w := &confWriter{}
		writeServerNamesHash(w, &model.Config{Servers: c.servers})
		for _, line := range c.want {
			if !strings.Contains(w.b.String(), line) {
				t.Errorf("%s: want %q in\n%s", c.name, line, w.b.String())
			}
		}
	}
}

func TestExactSlashLocations(t *testing.T) {
	locs := []model.Location{
		{Path: "/", PathType: model.PathPrefix},
		{Path: "/a", PathType: model.PathExact},
		{Path: "/fo.*", PathType: model.PathImplementationSpecific, Regex: true},
		{Path: "/b/", PathType: model.PathExact},
		{Path: "/", PathType: model.PathExact},
		{Path: "/c.d/", PathType: model.PathExact},
		{Path: "/e/", PathType: model.PathPrefix},
	}
	if got, want := model.LocationOrder(locs), []int{3, 5, 0, 1, 2, 4, 6}; !slices.Equal(got, want) {
		t.Errorf("LocationOrder = %v, want %v", got, want)
	}
	for _, c := range []struct {
		i    int
		want []model.Matcher
	}{
		{1, []model.Matcher{{Modifier: "=", Path: "/a"}}},
		{3, []model.Matcher{{Modifier: "~", Path: `^/b/$`}}},
		{4, []model.Matcher{{Modifier: "=", Path: "/"}}},
		{5, []model.Matcher{{Modifier: "~", Path: `^/c\.d/$`}}},
		{6, []model.Matcher{{Path: "/e/"}, {Modifier: "=", Path: "/e"}}},
	} {
		var got []model.Matcher
		for _, m := range model.LocationMatchers(&locs[c.i], nil) {
			got = append(got, exactSlashMatcher(&locs[c.i], m))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %s: matchers %v, want %v", locs[c.i].PathType, locs[c.i].Path, got, c.want)
		}
	}
}
