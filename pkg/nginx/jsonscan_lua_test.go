package nginx

// Unit tests of lua/jsonscan.lua, run inside nginx (the module needs
// LuaJIT's FFI): a test location answers the spans the scanner finds in
// the request body, and the test holds them to what encoding/json makes of
// the same text.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// jsonscanTestServer answers {"spans": [[first, last], …]} for op=array
// and {"members": [[key_first, key_last, value_first, value_last], …]} for
// op=members (1-based byte positions), {"spans": false} when the scanner
// refuses the body; op=array_at scans the span [first, last] of the body.
const jsonscanTestServer = `
    server {
        listen 127.0.0.1:%d;
        client_max_body_size 64m;
        client_body_buffer_size 64m;
        location = /t {
            content_by_lua_block {
                local scan = require("jsonscan")
                local cjson = require("cjson.safe")
                ngx.req.read_body()
                local body = ngx.req.get_body_data() or ""
                local a = ngx.req.get_uri_args()
                local out = {}
                if a.op == "members" then
                    out.members = scan.members(body) or false
                elseif a.op == "validate" then
                    -- the Lua memory that checking the payload leaves
                    -- behind, after a full collection
                    local validate = require("validate")
                    collectgarbage("collect")
                    local before = collectgarbage("count")
                    local ok
                    if a.what == "routes" then
                        ok = validate.routes(body) ~= nil
                    else
                        ok = validate.backends(body) ~= nil
                    end
                    body = nil
                    collectgarbage("collect")
                    out.ok, out.kept = ok, (collectgarbage("count") - before) * 1024
                else
                    local starts, ends
                    if a.op == "array_at" then
                        starts, ends = scan.array_at(body, tonumber(a.first), tonumber(a.last))
                    else
                        starts, ends = scan.array(body)
                    end
                    if starts then
                        out.spans = {}
                        for i = 1, #starts do
                            out.spans[i] = { starts[i], ends[i] }
                        end
                    else
                        out.spans = false
                    end
                end
                ngx.say(cjson.encode(out))
            }
        }
    }
`

type jsonscanResult struct {
	Spans   json.RawMessage `json:"spans"`
	Members json.RawMessage `json:"members"`
	OK      bool            `json:"ok"`
	Kept    float64         `json:"kept"`
}

// jsonscanLua starts nginx with the test server and returns a caller of
// the test location.
func jsonscanLua(t *testing.T) func(op, body string, extra ...string) jsonscanResult {
	t.Helper()
	e := layoutEnv(t)
	port := freePorts(t, 1)[0]
	if err := e.in.Start(ctxFor(t, 20*time.Second), e.conf(fmt.Sprintf(jsonscanTestServer, port))); err != nil {
		t.Fatal(err)
	}
	return func(op, body string, extra ...string) jsonscanResult {
		t.Helper()
		q := "op=" + op + strings.Join(extra, "")
		code, out, _ := e.do(t, http.MethodPost, "http://127.0.0.1:"+strconv.Itoa(port)+"/t?"+q, body, nil)
		var r jsonscanResult
		if err := json.Unmarshal([]byte(out), &r); code != 200 || err != nil {
			t.Fatalf("%s %.200q: %d %s", op, body, code, out)
		}
		return r
	}
}

// spansCaller returns a caller that answers the spans (nil: refused) of op
// on body.
func spansCaller(t *testing.T, call func(op, body string, extra ...string) jsonscanResult) func(op, body string, extra ...string) [][]int {
	return func(op, body string, extra ...string) [][]int {
		t.Helper()
		r := call(op, body, extra...)
		raw := r.Spans
		if op == "members" {
			raw = r.Members
		}
		if string(raw) == "false" {
			return nil
		}
		spans := [][]int{}
		if string(raw) != "{}" { // cjson writes an empty table as an object
			if err := json.Unmarshal(raw, &spans); err != nil {
				t.Fatalf("%s %q: %s: %v", op, body, raw, err)
			}
		}
		return spans
	}
}

// texts returns the text of each span of body.
func texts(body string, spans [][]int) []string {
	out := []string{}
	for _, s := range spans {
		for i := 0; i+1 < len(s); i += 2 {
			out = append(out, body[s[i]-1:s[i+1]])
		}
	}
	return out
}

func TestLuaJSONScan(t *testing.T) {
	requireNginx(t)
	lua := jsonscanLua(t)
	call := spansCaller(t, lua)

	t.Run("arrays", func(t *testing.T) {
		for _, c := range []struct {
			body string
			want []string // nil: refused
		}{
			{`[]`, []string{}},
			{" \n[ \t]\r\n", []string{}},
			{`[1]`, []string{`1`}},
			{`[ 1 , "a" ,null,true]`, []string{`1`, `"a"`, `null`, `true`}},
			{`[{"a":[1,2],"b":{"c":"]}"}}, [[]], {}]`, []string{`{"a":[1,2],"b":{"c":"]}"}}`, `[[]]`, `{}`}},
			{`["a\"],[", "\\", "\\\""]`, []string{`"a\"],["`, `"\\"`, `"\\\""`}},
			{`["é", "\u005d"]`, []string{`"é"`, `"\u005d"`}},
			{`[1 2]`, []string{`1 2`}}, // one element: cjson refuses it, not the scan
			{`[1,]`, nil},
			{`[,1]`, nil},
			{`[1,,2]`, nil},
			{`[,]`, nil},
			{`[1}`, nil},
			{`[{]`, nil},
			{`[1] x`, nil},
			{`[1][2]`, nil},
			{`[1`, nil},
			{`["a]`, nil},
			{`{"a":1}`, nil},
			{`1`, nil},
			{``, nil},
		} {
			got := call("array", c.body)
			if c.want == nil {
				if got != nil {
					t.Errorf("array %q = %q, want refused", c.body, texts(c.body, got))
				}
				continue
			}
			if got == nil || !slices.Equal(texts(c.body, got), c.want) {
				t.Errorf("array %q = %q (%v), want %q", c.body, texts(c.body, got), got, c.want)
			}
		}
	})

	t.Run("array_at", func(t *testing.T) {
		body := `{"hosts": [ {"h":"a"}, 2 ], "x": 1}`
		first := strings.Index(body, "[") + 1
		last := strings.Index(body, "]") + 1
		got := call("array_at", body, "&first="+strconv.Itoa(first), "&last="+strconv.Itoa(last))
		if want := []string{`{"h":"a"}`, `2`}; !slices.Equal(texts(body, got), want) {
			t.Errorf("array_at = %q, want %q", texts(body, got), want)
		}
		if got := call("array_at", body, "&first=1", "&last="+strconv.Itoa(len(body))); got != nil {
			t.Errorf("array_at of an object = %v, want refused", got)
		}
		if got := call("array_at", body, "&first="+strconv.Itoa(first), "&last="+strconv.Itoa(last-1)); got != nil {
			t.Errorf("array_at without its closing bracket = %v, want refused", got)
		}
	})

	t.Run("members", func(t *testing.T) {
		for _, c := range []struct {
			body string
			want []string // key, value, key, value…; nil: refused
		}{
			{`{}`, []string{}},
			{` { "a" : 1 , "b":[1,{"c":2}] } `, []string{`"a"`, `1`, `"b"`, `[1,{"c":2}]`}},
			{`{"a:b":"c:d","e":{"f":1}}`, []string{`"a:b"`, `"c:d"`, `"e"`, `{"f":1}`}},
			{`{"a":1,}`, nil},
			{`{"a"}`, nil},
			{`{"a":}`, nil},
			{`{:1}`, nil},
			{`{"a":1,"b"}`, nil},
			{`{"a":1]`, nil},
			{`{"a":1} {}`, nil},
			{`[1]`, nil},
		} {
			got := call("members", c.body)
			if c.want == nil {
				if got != nil {
					t.Errorf("members %q = %q, want refused", c.body, texts(c.body, got))
				}
				continue
			}
			if got == nil || !slices.Equal(texts(c.body, got), c.want) {
				t.Errorf("members %q = %q, want %q", c.body, texts(c.body, got), c.want)
			}
		}
	})

	// Random arrays of random JSON values, pretty or compact: the spans
	// are the elements encoding/json finds.
	t.Run("generated", func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for n := range 40 {
			var list []any
			for range r.IntN(6) {
				list = append(list, randomJSON(r, 3))
			}
			body, err := json.Marshal(list)
			if err != nil {
				t.Fatal(err)
			}
			if list == nil {
				body = []byte("[]")
			}
			if n%2 == 1 {
				var b bytes.Buffer
				if err := json.Indent(&b, body, " ", "\t"); err != nil {
					t.Fatal(err)
				}
				body = b.Bytes()
			}
			var want []json.RawMessage
			if err := json.Unmarshal(body, &want); err != nil {
				t.Fatal(err)
			}
			got := texts(string(body), call("array", string(body)))
			if len(got) != len(want) {
				t.Fatalf("array %s: %d elements %q, want %d", body, len(got), got, len(want))
			}
			for i := range want {
				if got[i] != string(want[i]) {
					t.Errorf("array %s: element %d = %q, want %q", body, i, got[i], want[i])
				}
			}
		}
	})
}

// TestLuaPayloadMemory: checking a large payload leaves no Lua memory
// behind once collected. validate.lua decodes it one entry at a time; a
// version whose compiled loop held the payload or its entries through a
// closure kept them all (about the payload's size) until the worker
// compiled other code.
func TestLuaPayloadMemory(t *testing.T) {
	requireNginx(t)
	call := jsonscanLua(t)
	const n = 20000
	var backends, routes strings.Builder
	backends.WriteString("[")
	routes.WriteString(`{"hosts":[`)
	for i := range n {
		if i > 0 {
			backends.WriteString(",")
			routes.WriteString(",")
		}
		fmt.Fprintf(&backends, `{"name":"ns-app-%05d-80","service":{"metadata":{"name":"app-%05d","namespace":"ns"}},"port":"80",`+
			`"endpoints":[{"address":"10.0.%d.%d","port":"8080"},{"address":"10.1.%d.%d","port":"8080"}],"load-balance":"round_robin"}`,
			i, i, i/250, i%250, i/250, i%250)
		fmt.Fprintf(&routes, `{"host":"app-%05d.example.com","version":"v%d","paths":[{"path":"/","pathType":"Prefix",`+
			`"matchers":[{"kind":"prefix","value":"/"}],"backend":"ns-app-%05d-80","locationPath":"/","settings":{"bodyLimit":1048576}}]}`,
			i, i, i)
	}
	backends.WriteString("]")
	routes.WriteString(`],"delete":[]}`)
	for _, c := range []struct{ what, body string }{{"backends", backends.String()}, {"routes", routes.String()}} {
		r := call("validate", c.body, "&what="+c.what)
		if !r.OK {
			t.Fatalf("validate.%s refused the payload", c.what)
		}
		if limit := float64(len(c.body)) / 20; r.Kept > limit {
			t.Errorf("validate.%s of %d bytes left %.0f bytes of Lua memory after a full collection, want at most %.0f",
				c.what, len(c.body), r.Kept, limit)
		}
	}
}

// randomJSON returns a random JSON value, nested depth levels at most, with
// strings that hold the scanner's special bytes.
func randomJSON(r *rand.Rand, depth int) any {
	strs := []string{"", "a", `"`, `\`, "[", "]", "{", "}", ",", ":", `\"]`, "é", "\n"}
	switch k := r.IntN(7); {
	case k == 0:
		return nil
	case k == 1:
		return r.IntN(2) == 0
	case k == 2:
		return r.Float64() * 1000
	case k == 3 || depth == 0:
		return strs[r.IntN(len(strs))] + strs[r.IntN(len(strs))]
	case k == 4 || k == 5:
		var out []any
		for range r.IntN(4) {
			out = append(out, randomJSON(r, depth-1))
		}
		return out
	default:
		out := map[string]any{}
		for range r.IntN(4) {
			out[strs[r.IntN(len(strs))]] = randomJSON(r, depth-1)
		}
		return out
	}
}
