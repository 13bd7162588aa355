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
