package e2e

// Real traffic through each balancing mode of lua/balancer_*.lua, chosen by
// the Ingress annotations as ingress-nginx chooses them.

import (
	"fmt"
	"net/http"
	"regexp"
	"testing"
	"time"
)

func TestRoundRobinSpreadsEvenly(t *testing.T) {
	bs := startBackends(t, "rr", 3)
	n := startNginx(t, serviceOf("rr", bs...)+ingressOf("rr", "rr.example.com", "rr", "2026-01-01T00:00:00Z", nil))
	ta := load(newClient(8), 3000, 8, func(int) *http.Request { return n.request("rr.example.com", "/") })
	if ta.failures > 0 {
		t.Fatalf("failed requests: %s", ta)
	}
	for _, b := range bs {
		if got := ta.byName[b.name]; !within(got, 1000, 0.05) {
			t.Errorf("%s got %d of 3000 requests, want 1000 ± 5%% (%s)", b.name, got, ta)
		}
	}
}

func TestEWMAAvoidsTheSlowEndpoint(t *testing.T) {
	fast := startBackends(t, "fast", 2)
	slow := startBackend(t, "slow", 50*time.Millisecond)
	n := startNginx(t, serviceOf("ewma", fast[0], fast[1], slow)+
		ingressOf("ewma", "ewma.example.com", "ewma", "2026-01-01T00:00:00Z", map[string]string{"load-balance": "ewma"}))
	ta := load(newClient(6), 600, 6, func(int) *http.Request { return n.request("ewma.example.com", "/") })
	if ta.failures > 0 {
		t.Fatalf("failed requests: %s", ta)
	}
	// Round robin would give each 200; the slow one must get clearly less
	// than half of what either fast one gets.
	s := ta.byName["slow"]
	for _, f := range fast {
		if 2*s >= ta.byName[f.name] {
			t.Errorf("slow endpoint got %d requests, %s got %d: want less than half (%s)", s, f.name, ta.byName[f.name], ta)
		}
	}
	t.Logf("ewma: %s", ta)
}

func TestConsistentHash(t *testing.T) {
	bs := startBackends(t, "ch", 4)
	sub := startBackends(t, "sub", 4)
	manifests := func(hashed []*backend) string {
		return serviceOf("ch", hashed...) +
			ingressOf("ch", "chash.example.com", "ch", "2026-01-01T00:00:00Z", map[string]string{"upstream-hash-by": "$arg_key"}) +
			serviceOf("sub", sub...) +
			ingressOf("sub", "subset.example.com", "sub", "2026-01-01T00:00:01Z", map[string]string{
				"upstream-hash-by": "$arg_key", "upstream-hash-by-subset": "true", "upstream-hash-by-subset-size": "2"})
	}
	n := startNginx(t, manifests(bs))
	const keys = 1000
	// route sends every key once with a new client (new connections, so
	// both workers answer) and returns key -> backend.
	route := func() []string {
		out := make([]string, keys)
		c := newClient(8)
		ta := newTally()
		done := make(chan struct{})
		next := make(chan int)
		for range 8 {
			go func() {
				for i := range next {
					r := send(c, n.request("chash.example.com", fmt.Sprintf("/?key=user-%d", i)))
					ta.add(r)
					out[i] = r.backend
				}
				done <- struct{}{}
			}()
		}
		for i := range keys {
			next <- i
		}
		close(next)
		for range 8 {
			<-done
		}
		if ta.failures > 0 {
			t.Fatalf("failed requests: %s", ta)
		}
		for _, b := range bs {
			if ta.byName[b.name] > 0 && ta.byName[b.name] < keys/10 {
				t.Errorf("%s owns only %d of %d keys (%s)", b.name, ta.byName[b.name], keys, ta)
			}
		}
		return out
	}
	first := route()
	again := route()
	for i := range keys {
		if first[i] != again[i] {
			t.Fatalf("key user-%d went to %s, then to %s", i, first[i], again[i])
		}
	}

	// Remove one of the four endpoints: only its keys move.
	removed := bs[3].name
	n.push(t, manifests(bs[:3]))
	after := route()
	moved := 0
	for i := range keys {
		if after[i] == removed {
			t.Fatalf("key user-%d still goes to the removed %s", i, removed)
		}
		if after[i] != first[i] {
			moved++
			if first[i] != removed {
				t.Errorf("key user-%d moved from %s to %s though its endpoint stayed", i, first[i], after[i])
			}
		}
	}
	if moved > keys*35/100 {
		t.Errorf("%d of %d keys moved, want at most 35%%", moved, keys)
	}
	t.Logf("removing 1 of 4 endpoints moved %d of %d keys", moved, keys)

	t.Run("subset", func(t *testing.T) {
		c := newClient(4)
		all := map[string]bool{}
		for k := range 40 {
			seen := map[string]bool{}
			for range 10 {
				r := send(c, n.request("subset.example.com", fmt.Sprintf("/?key=k%d", k)))
				if r.err != nil || r.status != http.StatusOK {
					t.Fatalf("key k%d: %d %v", k, r.status, r.err)
				}
				seen[r.backend] = true
				all[r.backend] = true
			}
			if len(seen) > 2 {
				t.Errorf("key k%d went to %d endpoints, want at most the subset size 2: %v", k, len(seen), seen)
			}
		}
		if len(all) < 3 {
			t.Errorf("40 keys used only %v of 4 endpoints", all)
		}
	})
}

// TestEWMATimeStamps: the ewma balancer keeps the time of a measurement
// in the flags of its shared-dict entry, milliseconds modulo 2^32. The
// flags are a C int: a time stored as 2^31 ms or more (half of every 49.7
// days) must come back as itself, and an age across either wrap must be
// the real one, not 24 or 49 days (which would decay every score to 0).
func TestEWMATimeStamps(t *testing.T) {
	body := luaSays(t, `
	local ewma = require("balancer_ewma")
	local dict = ngx.shared.balancer_ewma
	-- each case: the time of the measurement and of the read, in
	-- seconds (multiples of 1/8 s: exact in milliseconds);
	-- 2^31 ms is 2147483.648 s, 2^32 ms 4294967.296 s
	for _, c in ipairs({
		{ 1000, 1001.5 },             -- far from both wraps
		{ 2147483.5, 2147485 },       -- across 2^31 ms
		{ 2147490, 2147492.5 },       -- above 2^31 ms
		{ 4294967, 4294968 },         -- across 2^32 ms
		{ 1001.5, 1000 },             -- the other worker's later clock
	}) do
		local ok, err = dict:set("stamp", 1, 0, ewma.stamp(c[1]))
		if not ok then
			ngx.say("set: ", err)
		end
		local _, flags = dict:get("stamp")
		ngx.say(string.format("%.3f", ewma.age(c[2], flags)))
	end
`)
	if want := "1.500\n1.500\n2.500\n1.000\n0.000\n"; string(body) != want {
		t.Errorf("ages read back from the flags:\n%s\nwant\n%s", body, want)
	}
}

// TestUpstreamTimeSeconds: util.last_seconds, which the ewma balancer
// reads its measurement with, answers what tonumber of the list's last
// value answers, bit for bit: for nginx's own form ("S.mmm", alone or last
// in a list of tries and of upstream groups) by its digit arithmetic, for
// every other form by tonumber itself; and nil for "-" and non-strings.
func TestUpstreamTimeSeconds(t *testing.T) {
	body := luaSays(t, `
	local util = require("util")
	local function same(s)
		local got, want = util.last_seconds(s), tonumber(util.last_value(s))
		if got ~= want then
			ngx.say(string.format("%q: %s, tonumber %s", tostring(s), tostring(got), tostring(want)))
			return false
		end
		return true
	end
	local cases = {
		"0.000", "0.001", "0.004", "0.010", "0.100", "1.000", "12.345", "999999999999.999",
		"9999999999999.999", "0.002, 1.250", "0.002, 1.250 : 0.031", "0.5, 0.250", "0.250 : -",
		"-", "", " ", ".250", "1.25", "1.2500", "1e3", "0x10.000", "-1.000", "1.000 ", "a1.000",
		"0.00a", "1,000.000", "1:0.300",
	}
	local fails = 0
	for _, s in ipairs(cases) do
		if not same(s) then
			fails = fails + 1
		end
	end
	-- every millisecond count up to 100 s, and random ones above
	for ms = 0, 100000 do
		if not same(string.format("%d.%03d", math.floor(ms / 1000), ms % 1000)) then
			fails = fails + 1
		end
	end
	for _ = 1, 100000 do
		local ms = math.random(0, 2^40)
		if not same(string.format("0.001, %d.%03d", math.floor(ms / 1000), ms % 1000)) then
			fails = fails + 1
		end
	end
	if util.last_seconds(nil) ~= nil or util.last_seconds(5) ~= nil then
		ngx.say("a non-string gives a value")
		fails = fails + 1
	end
	ngx.say("fails ", fails, ", last ", util.last_seconds("0.250, 12.345"))
`)
	if want := "fails 0, last 12.345\n"; string(body) != want {
		t.Errorf("last_seconds against tonumber:\n%s\nwant %q", body, want)
	}
}

// TestCookieValue: cookie.lua's loop-free reading of a cookie (value_in)
// answers what its pair-by-pair walk (find) answers, for headers made to
// hit its edges and 200,000 random ones of the bytes that matter (the
// name, a longer name that ends with it, "=", ";", white space, quotes).
func TestCookieValue(t *testing.T) {
	body := luaSays(t, `
	local cookie = require("cookie")
	local fails = 0
	local function same(h, name)
		local got, want = cookie.value_in(h, name), cookie.find(h, name)
		if got ~= want then
			fails = fails + 1
			if fails <= 5 then
				ngx.say(string.format("%q %q: %s, find %s", h, name, tostring(got), tostring(want)))
			end
		end
		return got
	end
	for _, c in ipairs({
		{ "route=1", "1" }, { " route=2", "2" }, { "a=b; route=3", "3" }, { "a=b;route=4", "4" },
		{ "xroute=1; route=5", "5" }, { "route =6; route=7", "6" }, { "a=route=1; route=8", "8" },
		{ "route=\"9\"", "9" }, { "route=\"", "\"" }, { "route=", "" }, { "route=; x=1", "" },
		{ "route= 10 ", "10" }, { "route; route=11", "11" }, { "a=1;  route=12", "12" },
		{ "route=13;", "13" }, { "a=1", nil }, { "routes=1", nil }, { "\troute=14", "14" },
	}) do
		local got = same(c[1], "route")
		if got ~= c[2] then
			ngx.say(string.format("%q: %s, want %s", c[1], tostring(got), tostring(c[2])))
			fails = fails + 1
		end
	end
	same("=1; a=2", "")
	local parts = { "route", "xroute", "r", "=", "=", ";", ";", " ", "\t", "\"", "1", "ab" }
	math.randomseed(7)
	for _ = 1, 200000 do
		local h = {}
		for i = 1, math.random(1, 10) do
			h[i] = parts[math.random(#parts)]
		end
		same(table.concat(h), "route")
	end
	ngx.say("fails ", fails)
`)
	if want := "fails 0\n"; string(body) != want {
		t.Errorf("cookie.value_in against cookie.find:\n%s\nwant %q", body, want)
	}
}

// TestRingFindsTheFirstPointAtOrAfterTheKey: ring.lua's find (a bucket
// index over the sorted points, a scan only in a crowded bucket) answers
// what a plain search of the sorted points answers, for rings of one to
// 1,000 ids (160 to 160,000 points: past 2^14 points the 2^16 buckets hold
// several points each) and keys past the last point (round to the first).
func TestRingFindsTheFirstPointAtOrAfterTheKey(t *testing.T) {
	body := luaSays(t, `
	local ring = require("ring")
	for _, size in ipairs({ 1, 3, 100, 1000 }) do
		local ids = {}
		for i = 1, size do
			ids[i] = "10.0." .. (i % 256) .. "." .. i .. ":8080"
		end
		local r = ring.new(ids)
		local hashes, wrong, wrapped = r.hashes, 0, 0
		for k = 1, 20000 do
			local key = "user-" .. k
			local h = ngx.crc32_long(key)
			-- the first point at or after h, by bisection
			local lo, hi = 1, #hashes
			if h > hashes[hi] then
				lo = 1
				wrapped = wrapped + 1
			else
				while lo < hi do
					local mid = math.floor((lo + hi) / 2)
					if hashes[mid] < h then lo = mid + 1 else hi = mid end
				end
			end
			if r:find(key) ~= r.owners[lo] then
				wrong = wrong + 1
			end
		end
		ngx.say(size, " ", #hashes, " ", wrong, " ", wrapped > 0 or size > 3)
	end
`)
	// ids, points, keys found wrongly, a key past the last point seen
	if want := "1 160 0 true\n3 480 0 true\n100 16000 0 true\n1000 160000 0 true\n"; string(body) != want {
		t.Errorf("ring sizes, points, wrong finds, wrap seen:\n%s\nwant\n%s", body, want)
	}
}

// TestEWMAPublishes: a worker offers its EWMA of an endpoint to the
// endpoint's shared-dict entry: the first measurement at once, a lower one
// within REFRESH of the last publication not (it waits for the next
// measurement or pick REFRESH later), one twice the entry at once; a
// lower EWMA does not replace another worker's higher entry; and a pick,
// also of a balancer made again, takes the higher of the worker's EWMA and
// the entry.
func TestEWMAPublishes(t *testing.T) {
	body := luaSays(t, `
	local ewma = require("balancer_ewma")
	local dict = ngx.shared.balancer_ewma
	local peers = {
		{ address = "127.0.0.1", port = "1", key = "a" },
		{ address = "127.0.0.1", port = "2", key = "b" },
	}
	local b = ewma.new({ name = "p" }, peers, "one")
	local function entry(key)
		return string.format("%.5f", dict:get(ewma.key_of("p", key)) or -1)
	end
	local function later()
		ngx.sleep(0.02)
		ngx.update_time()
	end
	local function picks(balancer)
		local got = {}
		for _ = 1, 20 do
			local _, port = balancer:balance(1)
			got[port == "1" and "a" or "b"] = true
		end
		return (got.a and "a" or "") .. (got.b and "b" or "")
	end
	b:measured("a", 0.050)
	ngx.say("first ", entry("a"))
	later()
	b:measured("a", 0.010)
	ngx.say("lower ", entry("a"))
	b:measured("a", 0.200)
	ngx.say("twice ", entry("a"))
	later()
	b:measured("a", 0.010)
	ngx.say("lower ", entry("a"))
	ngx.sleep(0.15)
	ngx.update_time()
	-- a pick REFRESH later publishes what waited (blended down
	-- a little, still above the entry's 0.200 decayed)
	ngx.say("picks ", picks(b), " ", entry("a"))
	-- b: slower in another worker than a in this one
	dict:set(ewma.key_of("p", "b"), 0.5, 600, ewma.stamp(ngx.now()))
	b:measured("b", 0.001)
	ngx.say("another's higher entry stays ", entry("b"), ", picks ", picks(b))
	b:measured("c", 1)
	ngx.say("unknown ", tostring(dict:get(ewma.key_of("p", "c"))))
	-- a balancer made again (a worker after a reload) scores
	-- from the entries
	ngx.say("made again picks ", picks(ewma.new({ name = "p" }, peers, "one")))
`)
	// a after 0.200 then 0.010 20 ms later: 0.200 · e^(-0.02/10) + 0.010 ·
	// (1 - e^(-0.02/10)) = 0.19962 (0.19 when the sleep took 0.47 s)
	want := regexp.MustCompile(`^first 0\.05000\nlower 0\.05000\ntwice 0\.20000\nlower 0\.20000\npicks b 0\.19\d\d\d\nanother's higher entry stays 0\.50000, picks a\nunknown nil\nmade again picks a\n$`)
	if !want.Match(body) {
		t.Errorf("entries and picks:\n%s\nwant %s", body, want)
	}
}

// TestEWMAReadsTheOtherWorkersScores: a pick reads an endpoint's
// shared-dict entry through the worker's copy of it, and again from the
// dict once the copy is REFRESH (0.1 s) old, so what another worker
// measured (here written into the entry directly) steers this worker's
// picks within that time.
func TestEWMAReadsTheOtherWorkersScores(t *testing.T) {
	body := luaSays(t, `
	local ewma = require("balancer_ewma")
	local dict = ngx.shared.balancer_ewma
	local b = ewma.new({ name = "t" }, {
		{ address = "127.0.0.1", port = "1", key = "a" },
		{ address = "127.0.0.1", port = "2", key = "b" },
	}, "one")
	-- two peers: every pick compares both
	local function pick()
		local _, port = b:balance(1)
		return port == "1" and "a" or "b"
	end
	dict:set(ewma.key_of("t", "b"), 3, 600, ewma.stamp(ngx.now()))
	ngx.say("start ", pick())
	-- the other worker measured a as slow
	dict:set(ewma.key_of("t", "a"), 5, 600, ewma.stamp(ngx.now()))
	ngx.say("copy ", pick())
	ngx.sleep(0.15)
	ngx.update_time()
	ngx.say("refreshed ", pick())
`)
	if want := "start a\ncopy a\nrefreshed b\n"; string(body) != want {
		t.Errorf("picks:\n%s\nwant\n%s", body, want)
	}
}

// TestEWMASkipsWhatCannotChangeIt: the ewma balancer does not read
// $upstream_response_time when the time since the try started (on nginx's
// clock, which that variable is a difference of) is no more than an EWMA
// the worker measured at the same now; so for 20,000 random states (EWMA,
// when measured, the worker's copy of the entry and when read, the last
// publication, a measurement waiting, the dict entry) and response times
// no longer than the bound, learning with the bound leaves the peer and
// its dict entry exactly as learning from the read time does, and skips
// the read often. And the real nginx's clock is there for balancer.lua.
func TestEWMASkipsWhatCannotChangeIt(t *testing.T) {
	body := luaSays(t, `
	local ewma = require("balancer_ewma")
	local balancer = require("balancer")
	local dict = ngx.shared.balancer_ewma
	local peers = { { address = "127.0.0.1", port = "1", key = "a" } }
	local with = ewma.new({ name = "with" }, peers, "one")
	local without = ewma.new({ name = "without" }, peers, "one")
	local FIELDS = { "own", "own_at", "entry", "read", "published", "dirty" }
	local function choose(list)
		return list[math.random(#list)]
	end
	local function show(v)
		if type(v) == "number" then
			return string.format("%.17g", v)
		end
		return tostring(v)
	end
	math.randomseed(11)
	local now = ngx.now() -- the same through the loop: no update_time, no yield
	local differ, skipped = 0, 0
	for _ = 1, 20000 do
		local state = {
			own = choose({ 0, 0.001, 0.002, 0.005, math.random() * 0.02 }),
			own_at = choose({ now, now, now - 0.001, now - 0.05, 0 }),
			entry = choose({ 0, 0.001, 0.002, 0.004, math.random() * 0.02 }),
			read = choose({ now, now - 0.05, now - 0.2 }),
			published = choose({ now, now - 0.05, now - 0.2, now + 0.001 }),
			dirty = math.random() < 0.5,
		}
		local entry_value, entry_at = choose({ false, 0.001, 0.003, 0.01 }), now - choose({ 0, 0.01, 0.3 })
		local bound = math.random(0, 12)
		local rtt = choose({ math.random(0, bound), bound }) / 1000
		local reads = 0
		local results = {}
		for i, b in ipairs({ with, without }) do
			local p = b.by_key.a
			for _, f in ipairs(FIELDS) do
				p[f] = state[f]
			end
			local key = ewma.key_of(b.name, "a")
			if entry_value then
				dict:set(key, entry_value, 600, ewma.stamp(entry_at))
			else
				dict:delete(key)
			end
			b:learn(p, i == 1 and bound or nil, function()
				reads = reads + 1
				return rtt
			end)
			local r = {}
			for _, f in ipairs(FIELDS) do
				r[#r + 1] = show(p[f])
			end
			local v, flags = dict:get(key)
			r[#r + 1] = show(v) .. "/" .. show(flags)
			results[i] = table.concat(r, " ")
		end
		if reads == 1 then
			skipped = skipped + 1
		end
		if results[1] ~= results[2] then
			differ = differ + 1
			if differ <= 5 then
				ngx.say("bound ", bound, " ms, ", show(rtt), " s: ", results[1], " | ", results[2])
			end
		end
	end
	ngx.say("differ ", differ, ", skipped over 2000 ", skipped > 2000, " under 18000 ", skipped < 18000)
	local ms = balancer.current_msec and balancer.current_msec()
	ngx.update_time()
	ngx.say("nginx's clock ", type(ms) == "number" and ms > 0 and balancer.current_msec() >= ms)
`)
	if want := "differ 0, skipped over 2000 true under 18000 true\nnginx's clock true\n"; string(body) != want {
		t.Errorf("learning with a bound against learning from the time read:\n%s\nwant\n%s", body, want)
	}
}
