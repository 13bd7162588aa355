package model

// LocationModSecurity is ModSecurity for one Ingress's locations
// (annotations enable-modsecurity, enable-owasp-core-rules,
// modsecurity-transaction-id), on top of the ConfigMap's ModSecurity.
type LocationModSecurity struct {
	// Enable is enable-modsecurity; EnableSet says the annotation was
	// given, so that "false" turns off the ConfigMap's ModSecurity for
	// these locations, as in ingress-nginx.
	Enable, EnableSet bool
	// OWASPRules is enable-owasp-core-rules: the Core Rule Set for these
	// locations (with Enable or the ConfigMap's ModSecurity).
	OWASPRules bool
	// TransactionID is modsecurity-transaction-id: literal text and nginx
	// variables ("$request_id"), validated by annotations.
	TransactionID string
}

// Writes says whether m gives its locations a line of their own beside
// the ConfigMap's ModSecurity g (nginxconf's writeLocationModSecurity): it
// turns g's off, turns it on, adds the Core Rule Set or a transaction id.
func (m *LocationModSecurity) Writes(g ModSecurity) bool {
	switch {
	case m == nil:
		return false
	case m.EnableSet && !m.Enable:
		return g.Enable
	case !m.Enable && !g.Enable:
		return false
	}
	return !g.Enable || (m.OWASPRules && !g.OWASPCoreRules) || m.TransactionID != ""
}
