package nginxconf

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// GeoIP2 (the ConfigMap's use-geoip2), as ingress-nginx writes it: Debian's
// libnginx-mod-http-geoip2 loaded, and at http level one geoip2 block per
// MaxMind database found (model.GeoIP2.Databases, set by render), each
// defining ingress-nginx's variables of its edition (model.GeoIP2Variables)
// from the client address $remote_addr, which the realip module has
// already replaced with use-forwarded-headers, enable-real-ip or
// use-proxy-protocol (writeRealIP). geoip2-autoreload-in-minutes becomes
// auto_reload.
//
// A config may read a $geoip2_* variable that no block defines (its
// database is missing, or use-geoip2 is off): nginx -t would fail with
// "unknown variable". Those variables are defined empty at the end of the
// http block (writeGeoIP2Fallbacks), so a missing database is a Problem
// (render) and empty values, never a broken nginx.conf.

// geoIP2Module is the module file of Debian's libnginx-mod-http-geoip2.
const geoIP2Module = "ngx_http_geoip2_module.so"

// geoIP2Blocks are the editions of g that get a geoip2 block: with
// use-geoip2, those found that define variables (not GeoIP2-Domain).
func geoIP2Blocks(g *model.Global) []string {
	if !g.GeoIP2.Enable {
		return nil
	}
	var out []string
	for _, e := range g.GeoIP2.Databases {
		if len(model.GeoIP2Variables(e)) > 0 && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// writeGeoIP2Module loads the module when a geoip2 block is written.
func writeGeoIP2Module(w *confWriter, g *model.Global, o ConfOptions) {
	if len(geoIP2Blocks(g)) > 0 {
		loadModule(w, o, geoIP2Module)
	}
}

// writeGeoIP2 writes the geoip2 blocks at http level.
func writeGeoIP2(w *confWriter, g *model.Global, o ConfOptions) {
	dir := o.GeoIP2Dir
	if dir == "" {
		dir = model.DefaultGeoIP2Dir
	}
	for _, e := range geoIP2Blocks(g) {
		w.open("geoip2", w.q(dir+"/"+e+".mmdb"))
		noSource := model.GeoIP2NoSource(e)
		if m := g.GeoIP2.AutoReloadMinutes; m > 0 && !noSource {
			w.line("auto_reload", strconv.Itoa(m)+"m")
		}
		for _, v := range model.GeoIP2Variables(e) {
			line := []string{"$" + v.Name}
			if !noSource {
				line = append(line, "source=$remote_addr")
			}
			if v.Default != "" {
				line = append(line, "default="+v.Default)
			}
			line = append(line, v.Path...)
			w.line(line...)
		}
		w.close()
	}
}

// writeGeoIP2Fallbacks defines empty, at the end of the http block, each
// $geoip2_* variable of model.GeoIP2VariableNames that the config written
// so far reads and no geoip2 block defines. nginx resolves variable names
// once the whole http block is read, so a map after its readers is fine.
func writeGeoIP2Fallbacks(w *confWriter) {
	read := geoIP2VariablesRead(w.b.Bytes())
	if len(read) == 0 {
		return
	}
	for _, e := range geoIP2Blocks(w.global()) {
		for _, v := range model.GeoIP2Variables(e) {
			delete(read, v.Name)
		}
	}
	for _, name := range model.GeoIP2VariableNames() {
		if !read[name] {
			continue
		}
		w.open("map", `""`, "$"+name)
		w.line("default", `""`)
		w.close()
	}
}

// geoIP2VariablesRead returns the names (without "$") of the variables
// "$geoip2_…" and "${geoip2_…}" in text, in one pass.
func geoIP2VariablesRead(text []byte) map[string]bool {
	read := map[string]bool{}
	needle := []byte("geoip2_")
	for off := 0; ; {
		i := bytes.Index(text[off:], needle)
		if i < 0 {
			return read
		}
		start := off + i
		end := start + len(needle)
		for end < len(text) && isVarChar(text[end]) {
			end++
		}
		off = end
		switch {
		case start >= 1 && text[start-1] == '$':
		case start >= 2 && text[start-2] == '$' && text[start-1] == '{' && end < len(text) && text[end] == '}':
		default:
			continue
		}
		read[string(text[start:end])] = true
	}
}
