package annotations

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// nginx modules beyond the core: brotli compression (Debian's
// libnginx-mod-http-brotli-filter, loaded only when enabled), ModSecurity
// and the OWASP Core Rule Set (libnginx-mod-http-modsecurity and
// modsecurity-crs, loaded only when enabled), GeoIP2
// (libnginx-mod-http-geoip2, loaded only when enabled and a database is
// present), gzip's remaining keys, and the modules kubectl-ingress does not
// load (OpenTelemetry, OpenTracing): their "false" is what we do anyway,
// their "true" is not supported, naming the module.

// maxGeoIP2AutoReload bounds geoip2-autoreload-in-minutes at a year.
const maxGeoIP2AutoReload = 366 * 24 * 60

// moduleConfigKeys are the ConfigMap keys of this family, sorted by key.
var moduleConfigKeys = []configKeySpec{
	{Key: "brotli-level", Kind: kindInt, Default: "4", Description: "Compression level of brotli, 1 to 11.",
		set: configInt(1, 11, func(g *model.Global) *int { return &g.Brotli.Level })},
	{Key: "brotli-min-length", Kind: kindInt, Default: "20", Description: "Smallest answer (bytes) compressed with brotli.",
		set: configInt(0, MaxInt32, func(g *model.Global) *int { return &g.Brotli.MinLength })},
	{Key: "brotli-types", Kind: kindMIMEList, Default: strings.Join(model.DefaultGlobal().Brotli.Types, " "), Description: "MIME types compressed when enable-brotli is on.",
		set: func(g *model.Global, v string) error {
			types := strings.Fields(v)
			for _, t := range types {
				if _, err := valueMIMEType(t); err != nil {
					return fmt.Errorf("entry %s %v", ValueQuote(t), err)
				}
			}
			g.Brotli.Types = types
			return nil
		}},
	{Key: "enable-brotli", Kind: kindBool, Default: "false", Description: "Compress answers with brotli for clients that accept it (nginx module libnginx-mod-http-brotli-filter).",
		set: configBool(func(g *model.Global) *bool { return &g.Brotli.Enable })},
	{Key: "enable-modsecurity", Kind: kindBool, Default: "false", Description: "The ModSecurity web application firewall (nginx module libnginx-mod-http-modsecurity) with the controller's own rules: SecRuleEngine DetectionOnly (matches are logged, requests still served), as ingress-nginx's default; the audit log of relevant transactions is logs/modsecurity_audit.log under the nginx prefix.",
		set: configBool(func(g *model.Global) *bool { return &g.ModSecurity.Enable })},
	{Key: "enable-opentelemetry", Kind: kindBool, Default: "false", Description: `OpenTelemetry tracing; "true" is not supported.`,
		set: configOffOnly("OpenTelemetry tracing needs an nginx OpenTelemetry module, which Debian does not ship")},
	{Key: "enable-opentracing", Kind: kindBool, Default: "false", Description: `OpenTracing (removed in ingress-nginx v1.10); "true" is not supported.`,
		set: configOffOnly("OpenTracing needs the nginx OpenTracing module, which Debian does not ship and ingress-nginx removed in v1.10 (use OpenTelemetry)")},
	{Key: "enable-owasp-modsecurity-crs", Kind: kindBool, Default: "false", Description: "The OWASP ModSecurity Core Rule Set (Debian's modsecurity-crs under /usr/share/modsecurity-crs), only together with enable-modsecurity.",
		set: configBool(func(g *model.Global) *bool { return &g.ModSecurity.OWASPCoreRules })},
	{Key: "geoip2-autoreload-in-minutes", Kind: kindInt, Default: "0", Description: "With use-geoip2: nginx re-reads a GeoIP2 database file that changed every this many minutes; 0 never (restart or reload).",
		set: configInt(0, maxGeoIP2AutoReload, func(g *model.Global) *int { return &g.GeoIP2.AutoReloadMinutes })},
	{Key: "gzip-min-length", Kind: kindInt, Default: "256", Description: "Smallest answer (bytes) compressed with gzip.",
		set: configInt(0, MaxInt32, func(g *model.Global) *int { return &g.GzipMinLength })},
	{Key: "use-geoip", Kind: kindBool, Default: "true", Description: "The legacy GeoIP databases; no longer published by MaxMind, so it has no effect, as in ingress-nginx.",
		set: func(_ *model.Global, v string) error {
			_, err := valueBool(v)
			return err
		}},
	{Key: "use-geoip2", Kind: kindBool, Default: "false", Description: "The GeoIP2 variables of ingress-nginx ($geoip2_city_country_code, $geoip2_city, $geoip2_asn …; nginx module libnginx-mod-http-geoip2), looked up by the client address (the real IP with use-forwarded-headers, enable-real-ip or use-proxy-protocol): one geoip2 block per MaxMind database of --maxmind-edition-ids found in --maxmind-db-dir (/etc/ingress-controller/geoip by default), downloaded at the controller's start with --maxmind-license-key or --maxmind-mirror. A missing database is a Problem and its variables are empty. The variables, by edition: " + geoIP2VariablesDoc() + ".",
		set: configBool(func(g *model.Global) *bool { return &g.GeoIP2.Enable })},
}

// geoIP2VariablesDoc lists the variables of each edition for the docs.
func geoIP2VariablesDoc() string {
	var parts []string
	seen := map[string]bool{}
	for _, e := range model.GeoIP2Editions() {
		vars := model.GeoIP2Variables(e)
		if len(vars) == 0 || seen[vars[0].Name] {
			continue
		}
		seen[vars[0].Name] = true
		names := make([]string, len(vars))
		for i, v := range vars {
			names[i] = "$" + v.Name
		}
		editions := e
		if strings.HasPrefix(e, "GeoIP2-") {
			if lite := "GeoLite2-" + strings.TrimPrefix(e, "GeoIP2-"); slices.Contains(model.GeoIP2Editions(), lite) {
				editions = e + " and " + lite
			}
		}
		parts = append(parts, editions+": "+strings.Join(names, ", "))
	}
	return strings.Join(parts, "; ")
}
