package nginxconf

import (
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// serverName is model.ServerName: how a host reaches server_name (and
// the SNI map of SSL passthrough), before quoting.
func serverName(host string) string {
	return model.ServerName(host)
}

// isRegexName says whether serverName made a regex of host: such a name
// is not in nginx's server name hash.
func isRegexName(host string) bool {
	return strings.HasPrefix(host, "*.")
}

// sniMapKey is the key of host in the "hostnames" map of SSL passthrough:
// the same name as serverName, but a regex there is matched against the SNI
// as the client sent it, which nginx does not lowercase, so it ignores case
// ("~*").
func sniMapKey(host string) string {
	name := serverName(host)
	if isRegexName(host) {
		return "~*" + strings.TrimPrefix(name, "~")
	}
	return name
}
