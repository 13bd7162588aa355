package luaapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// TestRoutesCacheFollowsEdits runs a RoutesCache through random edits of
// a Config (hosts added, removed, changed, kept; regex paths shared
// between hosts; server-aliases) as render.Incremental makes them: unchanged servers keep
// their Locations arrays. After each, the payloads, the routes dict's
// need and the distinct regexes equal the uncached functions', and only
// the changed hosts were encoded again.
func TestRoutesCacheFollowsEdits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 14))
	ing := model.ObjectRef{Kind: "Ingress", Namespace: "team", Name: "web"}
	// ciphers gives s ssl-ciphers and ssl-prefer-server-ciphers now and
	// then (the handshake's: the entries of s and its aliases carry them)
	ciphers := func(s *model.Server) {
		s.SSLCiphers, s.SSLPreferServerCiphers = "", nil
		if rng.IntN(3) == 0 {
			s.SSLCiphers = []string{"HIGH", "ECDHE-RSA-AES128-GCM-SHA256"}[rng.IntN(2)]
		}
		if rng.IntN(3) == 0 {
			s.SSLPreferServerCiphers = new(rng.IntN(2) == 0)
		}
	}
	server := func(host string) model.Server {
		s := model.Server{Hostname: host}
		if rng.IntN(4) == 0 { // its server-alias entries follow it
			s.Aliases = []string{"www." + host, "*.w" + host}
		}
		ciphers(&s)
		for range 1 + rng.IntN(3) {
			l := model.Location{Path: fmt.Sprintf("/p%d", rng.IntN(5)), PathType: model.PathPrefix, Backend: "team-web-80", Ingress: ing, Settings: &model.LocationSettings{}}
			if rng.IntN(2) == 0 {
				// few distinct regexes: hosts share them
				l.Path, l.PathType, l.Regex = fmt.Sprintf("/r%d/(.*)", rng.IntN(4)), model.PathImplementationSpecific, true
			}
			s.Locations = append(s.Locations, l)
		}
		return s
	}
	c := &model.Config{Global: model.DefaultGlobal(), DefaultBackend: model.DefaultBackendName}
	c.Servers = append(c.Servers, model.Server{Hostname: model.CatchAllHost})
	for i := range 40 {
		c.Servers = append(c.Servers, server(fmt.Sprintf("h%03d.example.com", i*2)))
	}
	// hostsOf lists the Lua-routed hosts: the catch-all now and then (it
	// counts as changed when it comes back).
	withCatchAll := false
	hostsOf := func(c *model.Config, changed *int) []string {
		var hosts []string
		was := withCatchAll
		withCatchAll = rng.IntN(2) == 0
		if withCatchAll && !was {
			*changed++
		}
		for _, s := range c.Servers {
			if s.Hostname != model.CatchAllHost || withCatchAll {
				hosts = append(hosts, s.Hostname)
			}
		}
		return hosts
	}
	var rc RoutesCache
	for step := range 300 {
		next := *c
		next.Servers = slices.Clone(c.Servers)
		changed := 0
		for range rng.IntN(4) {
			i := 1 + rng.IntN(len(next.Servers)-1)
			switch rng.IntN(4) {
			case 0: // removed
				next.Servers = slices.Delete(next.Servers, i, i+1)
			case 1: // changed
				next.Servers[i] = server(next.Servers[i].Hostname)
				changed++
			case 2: // its ciphers changed, its Locations kept
				ciphers(&next.Servers[i])
				changed += 1 + len(next.Servers[i].Aliases)
			default: // added, in order
				host := fmt.Sprintf("h%03d.example.com", rng.IntN(100))
				if j, found := slices.BinarySearchFunc(next.Servers[1:], host, func(s model.Server, h string) int {
					return strings.Compare(s.Hostname, h)
				}); !found {
					next.Servers = slices.Insert(next.Servers, j+1, server(host))
					changed++
				}
			}
			if len(next.Servers) < 2 {
				next.Servers = append(next.Servers, server("h999.example.com"))
			}
		}
		c = &next
		hosts := hostsOf(c, &changed)
		got := rc.RoutesFromModel(c, hosts)
		want := RoutesFromModel(c, hosts)
		// the same JSON; the cache's entries are compact
		gotJSON, err1 := json.Marshal(got)
		wantJSON, err2 := json.Marshal(want)
		if err1 != nil || err2 != nil || !bytes.Equal(gotJSON, wantJSON) {
			t.Fatalf("step %d: payloads differ from RoutesFromModel's (%v, %v):\n%s\nwant\n%s", step, err1, err2, gotJSON, wantJSON)
		}
		for i := range got {
			if got[i].AliasOf == "" && got[i].encoded == nil {
				t.Fatalf("step %d: the cache's entry of %s is not compact", step, got[i].Host)
			}
		}
		if step > 0 && len(hosts)-rc.Reused > changed {
			t.Errorf("step %d: encoded %d hosts, %d changed", step, len(hosts)-rc.Reused, changed)
		}
		distinct := map[string]bool{}
		for i := range want {
			for _, re := range pathRegexes(&want[i], nil) {
				distinct[re] = true
			}
		}
		if len(rc.regexes) != len(distinct) {
			t.Fatalf("step %d: the cache counts %d regexes, the payloads have %d", step, len(rc.regexes), len(distinct))
		}
		for _, cur := range []int{0, 1024, 4096, 1 << 20} {
			if g, w := rc.RegexCacheSize(cur), RegexCacheSize(want, cur); g != w {
				t.Fatalf("step %d: RegexCacheSize(%d) %d, want %d", step, cur, g, w)
			}
		}
		// the need summed from the version's JSON is hostNeeds's, byte
		// for byte (the entries are not encoded again to size them)
		var wantNeed int64
		for i := range want {
			n, err := hostNeeds(&want[i])
			if err != nil {
				t.Fatal(err)
			}
			wantNeed += n
		}
		if rc.need != wantNeed {
			t.Fatalf("step %d: the cache needs %d bytes, hostNeeds %d", step, rc.need, wantNeed)
		}
		wantSize, werr := SizeRoutesDict(want, 0)
		if gotSize, err := rc.SizeRoutesDict(0); gotSize != wantSize || (err == nil) != (werr == nil) {
			t.Fatalf("step %d: routes dict %d, %v; want %d, %v", step, gotSize, err, wantSize, werr)
		}
	}
}

// TestHostRoutesShape: the shape of the JSON that gives a payload its
// version, with the version's digits added, is the shape of the payload's
// own JSON (which routes_data stores), so that RoutesCache sizes an entry
// without encoding it again.
func TestHostRoutesShape(t *testing.T) {
	c := routesModel()
	for i := range c.Servers {
		h, shape := hostRoutesOf(c, &c.Servers[i])
		data, err := json.Marshal(h)
		if err != nil || shape.err != nil {
			t.Fatal(err, shape.err)
		}
		got, want := shape, shapeOf(data)
		if got.length != want.length || got.slashes != want.slashes || want.slashes == 0 || len(h.Version) != 32 || !bytes.Equal(shape.json, data) {
			t.Errorf("%s: shape %+v, the payload's JSON %+v (version %q)", h.Host, got, want, h.Version)
		}
		// the version hashes the JSON without it, as it always did
		h.Version = ""
		empty, err := json.Marshal(h)
		if sum := sha256.Sum256(empty); err != nil || hex.EncodeToString(sum[:16]) != HostRoutesOf(c, &c.Servers[i]).Version {
			t.Errorf("%s: version %s is not the hash of %s", h.Host, HostRoutesOf(c, &c.Servers[i]).Version, empty)
		}
		h = HostRoutesOf(c, &c.Servers[i])
		// the compact form keeps that JSON, and gives back the entry
		compact := compacted(h, shape.json)
		cdata, err := json.Marshal(compact)
		if err != nil || !bytes.Equal(cdata, data) {
			t.Errorf("%s: compact JSON (%v)\n%s\nwant\n%s", h.Host, err, cdata, data)
		}
		if compact.encoded == nil || compact.Paths != nil {
			t.Errorf("%s: not compact: %+v", h.Host, compact)
		}
		back, err := compact.Decoded()
		if err != nil || !reflect.DeepEqual(back, h) {
			t.Errorf("%s: decoded (%v)\n%+v\nwant\n%+v", h.Host, err, back, h)
		}
		ns, ing := h.Owner()
		if cns, cing := compact.Owner(); cns != ns || cing != ing || (ing == "" && len(h.Paths) > 0 && h.Paths[0].Ingress != "") {
			t.Errorf("%s: owner %s/%s, compact %s/%s", h.Host, ns, ing, cns, cing)
		}
		if !slices.Equal(compact.Shapes(), h.Shapes()) {
			t.Errorf("%s: shapes %q, compact %q", h.Host, compact.Shapes(), h.Shapes())
		}
		// a copy whose fields change is encoded with them, not as kept
		changed, plain := compact, h
		changed.Host, changed.Version, changed.AliasOf = "other.example.com", "v2", "x.example.com"
		plain.Host, plain.Version, plain.AliasOf = changed.Host, changed.Version, changed.AliasOf
		gotChanged, err1 := json.Marshal(changed)
		wantChanged, err2 := json.Marshal(plain)
		if err1 != nil || err2 != nil || !bytes.Equal(gotChanged, wantChanged) {
			t.Errorf("%s: a changed compact entry encodes as\n%s\nwant\n%s", h.Host, gotChanged, wantChanged)
		}
	}
}
