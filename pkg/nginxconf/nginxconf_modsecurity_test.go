package nginxconf

import (
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// TestModSecurityLines: the module and the rules only with
// enable-modsecurity, the Core Rule Set only with both keys, and never on
// the status server, whose payloads hold private keys.
func TestModSecurityLines(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		m                     model.ModSecurity
		module, on, crs, stat bool
	}{
		{name: "off"},
		{name: "crs alone", m: model.ModSecurity{OWASPCoreRules: true}},
		{name: "on", m: model.ModSecurity{Enable: true}, module: true, on: true, stat: true},
		{name: "on with crs", m: model.ModSecurity{Enable: true, OWASPCoreRules: true}, module: true, on: true, crs: true, stat: true},
	} {
		c := &model.Config{Global: model.DefaultGlobal()}
		c.Global.ModSecurity = tc.m
		b, err := NGINXConf(c, DefaultConfOptions())
		if err != nil {
			t.Fatal(err)
		}
		conf := string(b)
		status := conf[strings.Index(conf, "status server"):]
		for _, check := range []struct {
			got  bool
			want bool
			what string
		}{
			{strings.Contains(conf, "load_module \"/usr/lib/nginx/modules/"+modSecurityModule+"\";"), tc.module, "load_module"},
			{strings.Contains(conf, "modsecurity on;") && strings.Contains(conf, "modsecurity_rules \"SecRuleEngine DetectionOnly\";"), tc.on, "modsecurity on"},
			{strings.Contains(conf, "Include "+ModSecurityCRSSetup) && strings.Contains(conf, "Include "+ModSecurityCRSRules), tc.crs, "CRS include"},
			{strings.Contains(status, "modsecurity off;"), tc.stat, "status server off"},
		} {
			if check.got != check.want {
				t.Errorf("%s: %s = %v, want %v", tc.name, check.what, check.got, check.want)
			}
		}
	}
}

// The ModSecurity annotations join the nginx -t sweep (TestNGINXAcceptsSweep).
var _ = func() bool {
	for name, e := range map[string]sweepEntry{
		"enable-modsecurity":         {values: []string{"true", "false"}},
		"enable-owasp-core-rules":    {values: []string{"true", "false"}, needs: []string{"enable-modsecurity", "true"}},
		"modsecurity-transaction-id": {values: []string{"$request_id", "web-$hostname:$pid.$msec"}, needs: []string{"enable-modsecurity", "true"}},
	} {
		sweepAnnotations[name] = e
	}
	return true
}()

// TestLocationModSecurityLines: the annotations in a location, against the
// ConfigMap's keys, as ingress-nginx writes them.
func TestLocationModSecurityLines(t *testing.T) {
	const crs = "Include " + ModSecurityCRSRules
	for _, tc := range []struct {
		name       string
		global     model.ModSecurity
		loc        model.LocationModSecurity
		want, none []string
		loaded     bool
	}{
		{name: "on by the annotation", loc: model.LocationModSecurity{Enable: true, EnableSet: true, OWASPRules: true, TransactionID: "$request_id"},
			want: []string{"modsecurity on;", `modsecurity_rules "SecRuleEngine DetectionOnly";`, crs, `modsecurity_transaction_id "$request_id";`}, loaded: true},
		{name: "false turns the ConfigMap's off", global: model.ModSecurity{Enable: true}, loc: model.LocationModSecurity{EnableSet: true},
			want: []string{"modsecurity off;"}, none: []string{"modsecurity on;", "modsecurity_rules"}, loaded: true},
		{name: "false without the ConfigMap's", loc: model.LocationModSecurity{EnableSet: true}, none: []string{"modsecurity"}},
		{name: "CRS already at http level", global: model.ModSecurity{Enable: true, OWASPCoreRules: true}, loc: model.LocationModSecurity{OWASPRules: true, TransactionID: "x"},
			want: []string{`modsecurity_transaction_id "x";`}, none: []string{"modsecurity on;", "modsecurity_rules"}, loaded: true},
		{name: "CRS for the location only", global: model.ModSecurity{Enable: true}, loc: model.LocationModSecurity{OWASPRules: true},
			want: []string{crs}, none: []string{"modsecurity on;", "SecRuleEngine"}, loaded: true},
		{name: "CRS without ModSecurity", loc: model.LocationModSecurity{OWASPRules: true, TransactionID: "x"}, none: []string{"modsecurity"}},
	} {
		g := model.DefaultGlobal()
		g.ModSecurity = tc.global
		loc := tc.loc
		st := &model.LocationSettings{ModSecurity: &loc}
		w := &confWriter{}
		writeLocationModSecurity(w, &g, st.ModSecurity)
		got := w.b.String()
		for _, s := range tc.want {
			if !strings.Contains(got, s) {
				t.Errorf("%s: lacks %q:\n%s", tc.name, s, got)
			}
		}
		for _, s := range tc.none {
			if strings.Contains(got, s) {
				t.Errorf("%s: has %q:\n%s", tc.name, s, got)
			}
		}
		c := &model.Config{Global: g, Servers: []model.Server{{Locations: []model.Location{{Settings: st}}}}}
		if l := modSecurityLoaded(c, nil); l != tc.loaded {
			t.Errorf("%s: module loaded %v, want %v", tc.name, l, tc.loaded)
		}
	}
}
