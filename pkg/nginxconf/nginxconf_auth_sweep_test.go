package nginxconf

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The external authentication values: every variable of the allowlist,
// 100 response headers of 46 bytes (the longest nginx's proxy_headers_hash takes) (each one an auth_request_set and a
// proxy_set_header), and the auth-url the others need.
var (
	sweepAuthVars    = "https://$best_http_host:1/$escaped_request_uri$host$http_host$pass_access_scheme$remote_addr$request_method$request_uri$scheme$server_name$server_port"
	sweepAuthHeaders = sweepAuthHeaderList(100)
	sweepAuthNeeds   = []string{"auth-url", "http://127.0.0.1/auth"}
)

func sweepAuthHeaderList(n int) string {
	list := make([]string, n)
	for i := range list {
		list[i] = fmt.Sprintf("X-%03d-%s", i, strings.Repeat("h", 46-6))
	}
	return strings.Join(list, ",")
}

// sweepAuthConfigMaps are the ConfigMaps the auth-proxy-set-headers
// sweep values name: 100 headers with names of 46 bytes and long values
// with every variable of the allowlist and request headers.
func sweepAuthConfigMaps() []*corev1.ConfigMap {
	data := map[string]string{}
	for i := 0; i < 100; i++ {
		data[fmt.Sprintf("X-%03d-%s", i, strings.Repeat("h", 46-6))] = sweepAuthVars + "$http_x_forwarded_user " + strings.Repeat("v", 1000)
	}
	var out []*corev1.ConfigMap
	for _, name := range []string{"x", sweepService63} {
		out = append(out, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "sweep", Name: name}, Data: data})
	}
	return out
}
