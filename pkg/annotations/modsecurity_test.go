package annotations

import "github.com/kubectl-ingress/kubectl-ingress/pkg/model"

// The cases of modsecurity.go join the tables of TestAnnotationGoodValues
// and TestAnnotationBadValues.
var _ = func() bool {
	goodAnnotationCases = append(goodAnnotationCases, modSecurityGoodCases...)
	badAnnotationCases = append(badAnnotationCases, modSecurityBadCases...)
	return true
}()

var modSecurityGoodCases = []annotationCase{
	{name: "enable-modsecurity", value: "true", want: func(a *Ingress) {
		a.Location.ModSecurity = &model.LocationModSecurity{Enable: true, EnableSet: true}
	}},
	{name: "enable-modsecurity", value: "false", want: func(a *Ingress) {
		a.Location.ModSecurity = &model.LocationModSecurity{EnableSet: true}
	}},
	{name: "enable-owasp-core-rules", value: "true", want: func(a *Ingress) {
		a.Location.ModSecurity = &model.LocationModSecurity{OWASPRules: true}
	}},
	{name: "modsecurity-transaction-id", value: "$request_id", want: func(a *Ingress) {
		a.Location.ModSecurity = &model.LocationModSecurity{TransactionID: "$request_id"}
	}},
	{name: "modsecurity-transaction-id", value: "web-$hostname:$pid.$msec", want: func(a *Ingress) {
		a.Location.ModSecurity = &model.LocationModSecurity{TransactionID: "web-$hostname:$pid.$msec"}
	}},
}

var modSecurityBadCases = []annotationCase{
	{name: "enable-modsecurity", value: "on"},
	{name: "enable-owasp-core-rules", value: "yes"},
	{name: "modsecurity-transaction-id", value: "$http_x_id"},
	{name: "modsecurity-transaction-id", value: "${request_id}"},
	{name: "modsecurity-transaction-id", value: `id"; deny all; "`},
	{name: "modsecurity-transaction-id", value: "a b"},
	{name: "modsecurity-transaction-id", value: "$"},
}
