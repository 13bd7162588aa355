package nginxconf

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// confWriter writes nginx.conf text with tab indentation. User values go
// through q, which quotes them with the one quoting function; keywords and
// numbers the writer makes itself are written as they are. The first error
// sticks and is returned by NGINXConf.
type confWriter struct {
	b     bytes.Buffer
	depth int
	err   error
	// trace, when not nil, records every directive as the writer meant it,
	// so that a test can check that nginx's tokenizer sees the same.
	trace *[]confEvent
	// owners, when not nil, records which Ingresses wrote each server and
	// location block (NGINXConfWithOwners); the bytes stay the same.
	owners *ConfOwners
	// g is the Global of the config being written (see global()).
	g *model.Global
	// monitor is on when lua/monitor.lua counts requests: every Ingress
	// location sets the label variables (nginxconf_monitor.go).
	monitor bool
	// snippet is the state of translated snippets (nginxconf_snippet.go).
	snippet snippetState
	// router, when not nil, writes the Lua router of --routing=lua
	// (nginxconf_lua.go).
	router *LuaRouting
	// shapes are the shape locations of the router's server (Lua routing).
	shapes []model.LocationShape
	// routerBodyMax is the client_max_body_size of the router's location
	// ("": the http level's), nil when the router's server is not written.
	routerBodyMax *string
}

// confEvent is one directive (or block end) as written: its tokens as they
// appear in the text, quoting included.
type confEvent struct {
	tokens []string
	block  bool // tokens open a block
	end    bool // a "}" that closes a block
}

func (w *confWriter) record(e confEvent) {
	if w.trace != nil {
		*w.trace = append(*w.trace, e)
	}
}

func (w *confWriter) indent() {
	for i := 0; i < w.depth; i++ {
		w.b.WriteByte('\t')
	}
}

// line writes one simple directive: tokens separated by spaces and ";".
func (w *confWriter) line(tokens ...string) {
	if w.snippet.drop.drops(w.depth, tokens) {
		return // a snippet sets it in this block (nginxconf_snippet.go)
	}
	w.record(confEvent{tokens: tokens})
	w.indent()
	for i, t := range tokens {
		if i > 0 {
			w.b.WriteByte(' ')
		}
		w.b.WriteString(t)
	}
	w.b.WriteString(";\n")
}

// open starts a block directive; close ends it.
func (w *confWriter) open(tokens ...string) {
	w.record(confEvent{tokens: tokens, block: true})
	w.indent()
	for _, t := range tokens {
		w.b.WriteString(t)
		w.b.WriteByte(' ')
	}
	w.b.WriteString("{\n")
	w.depth++
}

func (w *confWriter) close() {
	w.record(confEvent{end: true})
	w.depth--
	w.indent()
	w.b.WriteString("}\n")
}

// raw writes a trusted line as it is (a Lua block the writer owns).
func (w *confWriter) raw(s string) {
	w.indent()
	w.b.WriteString(s)
	w.b.WriteByte('\n')
}

// comment writes "## text"; the text must not be able to end the line.
func (w *confWriter) comment(text string) {
	if strings.ContainsAny(text, "\r\n") {
		w.fail(fmt.Errorf("comment %q holds a line break", text))
		return
	}
	w.indent()
	w.b.WriteString("## ")
	w.b.WriteString(text)
	w.b.WriteByte('\n')
}

// q quotes a user value for nginx.conf.
func (w *confWriter) q(v string) string {
	s, err := quote(v)
	if err != nil {
		w.fail(err)
		return `""`
	}
	return s
}

func (w *confWriter) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// onOff renders a bool as nginx's on/off.
func onOff(v bool) string {
	if v {
		return "on"
	}
	return "off"
}
