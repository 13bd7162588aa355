package nginxconf

import "github.com/kubectl-ingress/kubectl-ingress/pkg/model"

// ModSecurity (enable-modsecurity) and the OWASP Core Rule Set
// (enable-owasp-modsecurity-crs), as ingress-nginx turns them on at http
// level, and per location by an Ingress's annotations (enable-modsecurity,
// enable-owasp-core-rules, modsecurity-transaction-id). The rules are the controller's own fixed lines, never a user's
// value: ingress-nginx's default modsecurity.conf runs SecRuleEngine
// DetectionOnly (a match is logged, the request still served), and so do
// these. Each rule is one modsecurity_rules directive of its own, so no
// file under the prefix is needed and nginx.conf stays the whole config.

// modSecurityModule is the module file of Debian's
// libnginx-mod-http-modsecurity.
const modSecurityModule = "ngx_http_modsecurity_module.so"

// modSecurityRules are the engine's settings: detection only, request
// bodies inspected (up to 13 MB, the common recommendation), responses
// not, the audit log of relevant transactions (a rule matched, or a 4xx
// but 404, or 5xx answer) in ModSecurityAuditLog. Not on nginx's standard
// output as ingress-nginx's: pkg/nginx reads what the master prints to
// tell a refused reload, and an audit entry quotes the client's request.
var modSecurityRules = []string{
	"SecRuleEngine DetectionOnly",
	"SecRequestBodyAccess On",
	"SecRequestBodyLimit 13107200",
	"SecRequestBodyNoFilesLimit 131072",
	"SecRequestBodyLimitAction ProcessPartial",
	"SecResponseBodyAccess Off",
	"SecPcreMatchLimit 1000",
	"SecPcreMatchLimitRecursion 1000",
	"SecArgumentSeparator &",
	"SecCookieFormat 0",
	"SecAuditEngine RelevantOnly",
	`SecAuditLogRelevantStatus "^(?:5|4(?!04))"`,
	"SecAuditLogParts ABIJDEFHZ",
	"SecAuditLogType Serial",
	"SecAuditLog " + ModSecurityAuditLog,
}

// ModSecurityAuditLog is the audit log's file, relative to the nginx
// prefix (nginx runs there, and libmodsecurity opens a relative path
// from the working directory).
const ModSecurityAuditLog = "logs/modsecurity_audit.log"

// ModSecurityCRSSetup and ModSecurityCRSRules are where Debian's
// modsecurity-crs installs the Core Rule Set's setup and rules.
const (
	ModSecurityCRSSetup = "/etc/modsecurity/crs/crs-setup.conf"
	ModSecurityCRSRules = "/usr/share/modsecurity-crs/rules/*.conf"
)

// modSecurityLoaded says whether nginx.conf loads the ModSecurity module:
// with the ConfigMap's enable-modsecurity or an Ingress's (of a location of
// c or of the Lua router's shapes), and only then,
// so that a config without them needs no ModSecurity package.
func modSecurityLoaded(c *model.Config, shapes []model.LocationShape) bool {
	if c.Global.ModSecurity.Enable {
		return true
	}
	for i := range shapes { // the Lua router's
		if m := shapes[i].ModSecurity; m != nil && m.Enable {
			return true
		}
	}
	for i := range c.Servers {
		for j := range c.Servers[i].Locations {
			if m := c.Servers[i].Locations[j].Settings.ModSecurity; m != nil && m.Enable {
				return true
			}
		}
	}
	return false
}

// writeLocationModSecurity writes an Ingress's ModSecurity annotations in
// its location, as ingress-nginx does: where the annotation or the
// ConfigMap turns it on, the controller's rules when the ConfigMap has
// not set them at http level, the Core Rule Set when asked for and not
// already at http level, the transaction id; and enable-modsecurity
// "false" turns the ConfigMap's off.
func writeLocationModSecurity(w *confWriter, g *model.Global, m *model.LocationModSecurity) {
	if !m.Writes(g.ModSecurity) {
		return
	}
	gm := g.ModSecurity
	if m.EnableSet && !m.Enable {
		if gm.Enable {
			w.line("modsecurity", "off")
		}
		return
	}
	if !m.Enable && !gm.Enable {
		return
	}
	if !gm.Enable {
		w.line("modsecurity", "on")
		for _, r := range modSecurityRules {
			w.line("modsecurity_rules", w.q(r))
		}
	}
	if m.OWASPRules && !(gm.Enable && gm.OWASPCoreRules) {
		writeModSecurityCRS(w)
	}
	if m.TransactionID != "" {
		w.line("modsecurity_transaction_id", w.q(m.TransactionID))
	}
}

// writeModSecurity turns ModSecurity on for every server (http level).
// The Core Rule Set is included only with ModSecurity on, as in
// ingress-nginx.
func writeModSecurity(w *confWriter, g model.Global) {
	m := g.ModSecurity
	if !m.Enable {
		return
	}
	w.line("modsecurity", "on")
	for _, r := range modSecurityRules {
		w.line("modsecurity_rules", w.q(r))
	}
	if m.OWASPCoreRules {
		writeModSecurityCRS(w)
	}
}

// writeModSecurityCRS includes Debian's Core Rule Set.
func writeModSecurityCRS(w *confWriter) {
	w.line("modsecurity_rules", w.q("Include "+ModSecurityCRSSetup))
	w.line("modsecurity_rules", w.q("Include "+ModSecurityCRSRules))
}
