package nginxconf

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Sweep values of the mirror, added headers and FastCGI: targets with
// every allowlisted variable and at the length limit, ConfigMaps of 100
// headers (or params) with long values, every variable of the allowlists,
// literal "$" and nginx's special characters in values.
var (
	sweepMirrorTargets = []string{
		"http://127.0.0.1/copy$request_uri",
		"https://[::1]:65535$uri$is_args$args$query_string$host$scheme",
		"http://10.0.0.1",
		"http://10.0.0.1:8080/" + strings.Repeat("m", 2000),
	}
	sweepCustomHeadersCM = "sweep-custom"
	sweepFastCGICM       = "sweep-fcgi"
	sweepFastCGIIndex    = strings.Repeat("i", 200) + ".php"
	sweepHeaderVars      = "$args$best_http_host$binary_remote_addr$connection$content_length$content_type$host$hostname$is_args$msec$nginx_version" +
		"$pass_access_scheme$pass_port$pass_server_port$proxy_add_x_forwarded_for$proxy_upstream_name$query_string$realip_remote_addr" +
		"$remote_addr$remote_port$req_id$request_id$request_method$request_time$request_uri$scheme$server_addr$server_name$server_port" +
		"$server_protocol$ssl_cipher$ssl_client_escaped_cert$ssl_client_fingerprint$ssl_client_i_dn$ssl_client_s_dn$ssl_client_serial" +
		"$ssl_client_verify$ssl_protocol$ssl_server_name$time_iso8601$time_local$uri$arg_a$cookie_b$http_x_c$sent_http_d$upstream_http_e ${host}x"
	sweepAllowedHeaders = func() string {
		names := make([]string, 99)
		for i := range names {
			names[i] = fmt.Sprintf("X-Sweep-%03d", i)
		}
		return strings.Join(names, ",")
	}()
)

// sweepHeaderConfigMaps are the ConfigMaps that the sweep values name.
func sweepHeaderConfigMaps() []*corev1.ConfigMap {
	special := ` ; { } " ' \ # ` + "`"
	custom, resp, req, fcgi := map[string]string{}, map[string]string{}, map[string]string{}, map[string]string{}
	for i := 0; i < 99; i++ {
		name := fmt.Sprintf("X-Sweep-%03d", i)
		custom[name] = "$5 $remote_addr ${x}" + special + strings.Repeat("c", 1000)
		resp[fmt.Sprintf("X-Resp-%03d", i)] = sweepHeaderVars + special + strings.Repeat("r", 500)
		req[fmt.Sprintf("X-Req-%03d", i)] = sweepHeaderVars + special + strings.Repeat("q", 500)
		fcgi[fmt.Sprintf("PARAM_%03d", i)] = "$document_root$fastcgi_script_name$fastcgi_path_info$request_filename$realpath_root$https$remote_user" + special + strings.Repeat("p", 500)
	}
	fcgi["SCRIPT_FILENAME"] = "/srv$fastcgi_script_name"
	cm := func(ns, name string, data map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
	}
	return []*corev1.ConfigMap{
		cm("sweep", sweepCustomHeadersCM, custom),
		cm("sweep", sweepFastCGICM, fcgi),
		cm("ingress-nginx", "sweep-response", resp),
		cm("ingress-nginx", "sweep-request", req),
		cm("ingress-nginx", "sweep-empty", map[string]string{}),
	}
}
