package luaapi

import (
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// snippetRewrites are the rewrite and return lines of a
// configuration-snippet as the router runs them, each variable of vars
// replaced by its value.
func snippetRewrites(steps []model.SnippetRewriteStep, vars map[string]string) []RouteRewrite {
	out := make([]RouteRewrite, 0, len(steps))
	for _, st := range steps {
		switch {
		case st.Return != nil:
			out = append(out, RouteRewrite{Return: &RouteReturn{Code: st.Return.Code, Text: resolveVars(st.Return.Text, vars)}})
		case st.Rewrite != nil:
			rw := st.Rewrite
			out = append(out, RouteRewrite{Regex: rw.Regex, Replacement: resolveVars(rw.Replacement, vars), Flag: rw.Flag})
		}
	}
	return out
}

// rewriteVars are the variables a snippet's rewrite or return line may
// read whose value is the classic location's and not the router's: the
// server's name (the router's server is "_"; a wildcard's is its regex)
// and the backend
// ($proxy_upstream_name, "-" where the location has none, as the classic
// server sets it before the location does). ($namespace, $service_name
// and $service_port are proxy_set_header's only: pkg/snippet.)
func rewriteVars(srv *model.Server, l *model.Location) map[string]string {
	backend := l.Backend
	if backend == "" {
		backend = "-"
	}
	return map[string]string{"server_name": model.ServerName(srv.Hostname), "proxy_upstream_name": backend}
}

// resolveVars replaces in s each variable ($name or ${name}, as nginx
// reads them) that vars names by its value; $1..$9 and the other
// variables stay. A value holds no "?" (names of Kubernetes objects and
// hosts) and a "$" only at the end of a wildcard's regex name, so the
// router reads the result as nginx reads s (but a wildcard's
// "${server_name}" followed by a name's letters).
func resolveVars(s string, vars map[string]string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			b.WriteByte(s[i])
			continue
		}
		j, braced := i+1, false
		if j < len(s) && s[j] == '{' {
			j, braced = j+1, true
		}
		k := j
		if k < len(s) && s[k] >= '1' && s[k] <= '9' && !braced {
			k++ // a capture: one digit
		} else {
			for k < len(s) && isVarByte(s[k]) {
				k++
			}
		}
		end := k
		if braced {
			if k >= len(s) || s[k] != '}' {
				b.WriteByte('$') // not a variable (validation refuses it)
				continue
			}
			end = k + 1
		}
		if v, ok := vars[s[j:k]]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[i:end])
		}
		i = end - 1
	}
	return b.String()
}

func isVarByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// serverHiddenHeaders are the headers that s's server-snippet hides
// (proxy_hide_header), which every location of its classic server block
// inherits (nil for none).
func serverHiddenHeaders(s *model.Server) []string {
	if s.Snippet == nil || len(s.Snippet.HideHeaders) == 0 {
		return nil
	}
	return s.Snippet.HideHeaders
}
