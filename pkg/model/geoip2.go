package model

import "slices"

// GeoIP2 is the ConfigMap's use-geoip2: nginx variables ($geoip2_city,
// $geoip2_asn …) looked up in MaxMind databases by the client address
// (Debian's libnginx-mod-http-geoip2), with ingress-nginx's variable names
// per database.
type GeoIP2 struct {
	Enable bool // use-geoip2
	// AutoReloadMinutes is geoip2-autoreload-in-minutes: nginx re-reads a
	// database file this often when it changed; 0 never.
	AutoReloadMinutes int
	// Databases are the editions ("GeoLite2-City") whose files the
	// controller found in its database directory, in the order of
	// --maxmind-edition-ids; render sets them from its options when Enable
	// is set, and the writer writes one geoip2 block for each.
	Databases []string
}

// GeoIP2Variable is one variable of a database: Name (without "$") holds
// the value at Path in the client address's record, or Default ("" for
// none) where the record has none.
type GeoIP2Variable struct {
	Name    string
	Path    []string
	Default string
}

// geoIP2Editions are the MaxMind editions that --maxmind-edition-ids may
// name, as ingress-nginx allows them, sorted. GeoIP2-Domain has no
// variables (ingress-nginx writes no block for it).
var geoIP2Editions = []string{
	"GeoIP2-ASN", "GeoIP2-Anonymous-IP", "GeoIP2-City", "GeoIP2-Connection-Type", "GeoIP2-Country",
	"GeoIP2-Domain", "GeoIP2-ISP", "GeoLite2-ASN", "GeoLite2-City", "GeoLite2-Country",
}

// GeoIP2Editions returns the editions --maxmind-edition-ids may name,
// sorted; a new slice each call.
func GeoIP2Editions() []string { return append([]string(nil), geoIP2Editions...) }

// DefaultGeoIP2Dir is where ingress-nginx keeps the MaxMind databases,
// <dir>/<edition>.mmdb (--maxmind-db-dir).
const DefaultGeoIP2Dir = "/etc/ingress-controller/geoip"

// DefaultGeoIP2Editions are ingress-nginx's --maxmind-edition-ids.
const DefaultGeoIP2Editions = "GeoLite2-City,GeoLite2-ASN"

// GeoIP2NoSource reports the editions whose variables ingress-nginx looks
// up without source=$remote_addr (the module's default, the same client
// address) and without auto_reload.
func GeoIP2NoSource(edition string) bool { return edition == "GeoIP2-Connection-Type" }

func geoVar(name string, path ...string) GeoIP2Variable {
	return GeoIP2Variable{Name: name, Path: path}
}

func geoVar0(name string, path ...string) GeoIP2Variable {
	return GeoIP2Variable{Name: name, Path: path, Default: "0"}
}

var (
	geoIP2CountryVars = []GeoIP2Variable{
		geoVar("geoip2_country_code", "country", "iso_code"),
		geoVar("geoip2_country_name", "country", "names", "en"),
		geoVar("geoip2_country_geoname_id", "country", "geoname_id"),
		geoVar("geoip2_continent_code", "continent", "code"),
		geoVar("geoip2_continent_name", "continent", "names", "en"),
		geoVar("geoip2_continent_geoname_id", "continent", "geoname_id"),
	}
	geoIP2CityVars = []GeoIP2Variable{
		geoVar("geoip2_city_country_code", "country", "iso_code"),
		geoVar("geoip2_city_country_name", "country", "names", "en"),
		geoVar("geoip2_city_country_geoname_id", "country", "geoname_id"),
		geoVar("geoip2_city_continent_code", "continent", "code"),
		geoVar("geoip2_city_continent_name", "continent", "names", "en"),
		geoVar("geoip2_city", "city", "names", "en"),
		geoVar("geoip2_city_geoname_id", "city", "geoname_id"),
		geoVar("geoip2_postal_code", "postal", "code"),
		geoVar("geoip2_dma_code", "location", "metro_code"),
		geoVar("geoip2_latitude", "location", "latitude"),
		geoVar("geoip2_longitude", "location", "longitude"),
		geoVar("geoip2_time_zone", "location", "time_zone"),
		geoVar("geoip2_region_code", "subdivisions", "0", "iso_code"),
		geoVar("geoip2_region_name", "subdivisions", "0", "names", "en"),
		geoVar("geoip2_region_geoname_id", "subdivisions", "0", "geoname_id"),
		geoVar("geoip2_subregion_code", "subdivisions", "1", "iso_code"),
		geoVar("geoip2_subregion_name", "subdivisions", "1", "names", "en"),
		geoVar("geoip2_subregion_geoname_id", "subdivisions", "1", "geoname_id"),
	}
	geoIP2ASNVars = []GeoIP2Variable{
		geoVar("geoip2_asn", "autonomous_system_number"),
		geoVar("geoip2_org", "autonomous_system_organization"),
	}
	geoIP2ISPVars = []GeoIP2Variable{
		geoVar("geoip2_isp", "isp"),
		geoVar("geoip2_isp_org", "organization"),
		geoVar("geoip2_asn", "autonomous_system_number"),
	}
	geoIP2AnonymousVars = []GeoIP2Variable{
		geoVar("geoip2_is_anon", "is_anonymous"),
		geoVar0("geoip2_is_anonymous", "is_anonymous"),
		geoVar0("geoip2_is_anonymous_vpn", "is_anonymous_vpn"),
		geoVar0("geoip2_is_hosting_provider", "is_hosting_provider"),
		geoVar0("geoip2_is_public_proxy", "is_public_proxy"),
		geoVar0("geoip2_is_tor_exit_node", "is_tor_exit_node"),
	}
	geoIP2ConnectionTypeVars = []GeoIP2Variable{
		geoVar("geoip2_connection_type", "connection_type"),
	}
)

// GeoIP2Variables returns the variables of an edition, as ingress-nginx
// names them (nil for GeoIP2-Domain and unknown editions); the caller must
// not modify them.
func GeoIP2Variables(edition string) []GeoIP2Variable {
	switch edition {
	case "GeoLite2-Country", "GeoIP2-Country":
		return geoIP2CountryVars
	case "GeoLite2-City", "GeoIP2-City":
		return geoIP2CityVars
	case "GeoLite2-ASN", "GeoIP2-ASN":
		return geoIP2ASNVars
	case "GeoIP2-ISP":
		return geoIP2ISPVars
	case "GeoIP2-Anonymous-IP":
		return geoIP2AnonymousVars
	case "GeoIP2-Connection-Type":
		return geoIP2ConnectionTypeVars
	}
	return nil
}

// GeoIP2VariableNames returns the name (without "$") of every variable of
// every edition, sorted, each once; a new slice each call.
func GeoIP2VariableNames() []string {
	seen := map[string]bool{}
	var names []string
	for _, e := range geoIP2Editions {
		for _, v := range GeoIP2Variables(e) {
			if !seen[v.Name] {
				seen[v.Name] = true
				names = append(names, v.Name)
			}
		}
	}
	slices.Sort(names)
	return names
}
