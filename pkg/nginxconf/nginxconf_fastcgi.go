package nginxconf

import (
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// FastCGI backends (backend-protocol FCGI): the parameters of nginx's
// fastcgi_params file (written here: the configuration never reads a file
// outside its prefix), then fastcgi-index and the params of
// fastcgi-params-configmap (a param of the ConfigMap replaces the standard
// one of the same name), and fastcgi_pass to the Lua balancer, which picks
// the endpoint as for proxy_pass.

// fastCGIStandardParams are nginx's fastcgi_params (Debian's, without its
// HTTP_HOST: nginx passes the request headers as HTTP_* anyway).
var fastCGIStandardParams = [][]string{
	{"QUERY_STRING", "$query_string"},
	{"REQUEST_METHOD", "$request_method"},
	{"CONTENT_TYPE", "$content_type"},
	{"CONTENT_LENGTH", "$content_length"},
	{"SCRIPT_NAME", "$fastcgi_script_name"},
	{"REQUEST_URI", "$request_uri"},
	{"DOCUMENT_URI", "$document_uri"},
	{"DOCUMENT_ROOT", "$document_root"},
	{"SERVER_PROTOCOL", "$server_protocol"},
	{"REQUEST_SCHEME", "$scheme"},
	{"HTTPS", "$https", "if_not_empty"},
	{"GATEWAY_INTERFACE", "CGI/1.1"},
	{"SERVER_SOFTWARE", "nginx/$nginx_version"},
	{"REMOTE_ADDR", "$remote_addr"},
	{"REMOTE_PORT", "$remote_port"},
	{"REMOTE_USER", "$remote_user"},
	{"SERVER_ADDR", "$server_addr"},
	{"SERVER_PORT", "$server_port"},
	{"SERVER_NAME", "$server_name"},
	{"REDIRECT_STATUS", "200"},
}

// writeFastCGI writes the FastCGI lines of a location; f may be nil (FCGI
// without index or params).
func writeFastCGI(w *confWriter, f *model.FastCGI) {
	writeFastCGIServer(w, f, "$server_name")
}

// writeFastCGIServer is writeFastCGI with the value of SERVER_NAME: the
// Lua router's server is "_", its shape location passes the host entry
// the router chose ($kubectl_ingress_server_name).
func writeFastCGIServer(w *confWriter, f *model.FastCGI, serverName string) {
	own := map[string]bool{}
	if f != nil {
		for _, p := range f.Params {
			own[p.Name] = true
		}
	}
	for _, p := range fastCGIStandardParams {
		if own[p[0]] {
			continue
		}
		if p[0] == "SERVER_NAME" {
			p = []string{p[0], serverName}
		}
		w.line(append([]string{"fastcgi_param"}, p...)...)
	}
	if f != nil {
		if f.Index != "" {
			w.line("fastcgi_index", w.q(f.Index))
		}
		for _, p := range f.Params {
			// Names are letters, digits and "_"; values hold allowlisted
			// variables only (annotations.ParseFastCGIParams).
			w.line("fastcgi_param", w.q(p.Name), w.q(p.Value))
		}
	}
	w.line("fastcgi_pass", "upstream_balancer")
}
