package annotations

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// configKeySpec describes one supported key of the controller ConfigMap.
type configKeySpec struct {
	// Key is the ConfigMap data key, as in ingress-nginx.
	Key string
	// Description is one line for the documentation.
	Description string
	// Kind is the kind of value.
	Kind valueKind
	// Default is the value of model.DefaultGlobal written as the key's
	// value; a test checks that parsing every Default gives DefaultGlobal.
	Default string
	// NoDefault says that the key has no default value (Default is ""):
	// without it the setting is off, and an invalid value leaves it off.
	NoDefault bool

	set func(g *model.Global, v string) error
}

// lookupConfigKeySpec returns the spec of key, or nil.
func lookupConfigKeySpec(key string) *configKeySpec {
	i := sort.Search(len(configKeySpecs), func(i int) bool { return configKeySpecs[i].Key >= key })
	if i < len(configKeySpecs) && configKeySpecs[i].Key == key {
		return &configKeySpecs[i]
	}
	return nil
}

// ConfigField is the Problem field of a ConfigMap key.
func ConfigField(key string) string {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return "data[" + strconv.Quote(key) + "]"
		}
	}
	return "data[" + key + "]"
}

// ParseConfigMap reads the controller ConfigMap cm into a Global that
// starts from model.DefaultGlobal. An invalid value is a Problem and keeps
// its default; a key of ingress-nginx this controller does not implement is
// a Problem saying it is not supported, any other key one saying it is
// unknown, with a did-you-mean.
func ParseConfigMap(cm model.ObjectRef, data map[string]string) (model.Global, []model.Problem) {
	g := model.DefaultGlobal()
	var problems []model.Problem

	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)

	for _, key := range keys {
		spec := lookupConfigKeySpec(key)
		var reason string
		switch {
		case spec != nil:
			v := strings.TrimSpace(data[key])
			var err error
			if v == "" {
				err = errors.New("is empty")
			} else {
				err = spec.set(&g, v)
			}
			if err == nil {
				continue
			}
			if reason = configProblemReason(err); reason != "" {
				break
			}
			reason = fmt.Sprintf("invalid value %s: %v; using the default (%s)", ValueQuote(v), err, spec.Default)
			if spec.NoDefault {
				reason = fmt.Sprintf("invalid value %s: %v; the key is ignored", ValueQuote(v), err)
			}
		case strings.HasSuffix(key, "-snippet"):
			reason = "snippets are not supported: they inject raw nginx configuration, " +
				"the cause of the CVE-2025-1974 class of injection vulnerabilities; the key is ignored"
		case inSorted(ingressNginxConfigKeys, key):
			reason = "not supported by kubectl-ingress; the key is ignored"
		default:
			reason = "unknown key: neither kubectl-ingress nor ingress-nginx has it" +
				didYouMean(key, knownConfigKeyNames) + "; the key is ignored"
		}
		problems = append(problems, model.Problem{Object: cm, Field: ConfigField(key), Reason: reason})
	}
	problems = append(problems, finishProxyConfig(cm, &g)...)
	return g, problems
}

// Setter builders for ConfigMap keys.

func configBool(field func(*model.Global) *bool) func(*model.Global, string) error {
	return func(g *model.Global, v string) error {
		b, err := valueBool(v)
		if err == nil {
			*field(g) = b
		}
		return err
	}
}

func configInt(min, max int, field func(*model.Global) *int) func(*model.Global, string) error {
	return func(g *model.Global, v string) error {
		n, err := valueInt(v, min, max)
		if err == nil {
			*field(g) = n
		}
		return err
	}
}

func configSeconds(field func(*model.Global) *int) func(*model.Global, string) error {
	return func(g *model.Global, v string) error {
		n, err := valueSeconds(v)
		if err == nil {
			*field(g) = n
		}
		return err
	}
}

func configSize(field func(*model.Global) *string) func(*model.Global, string) error {
	return func(g *model.Global, v string) error {
		s, err := valueSize(v)
		if err == nil {
			*field(g) = s
		}
		return err
	}
}

// configKeyFamily is the part of the ConfigMap key table that one file
// holds.
type configKeyFamily struct {
	// Name names the family (its file, without .go), for tests.
	Name  string
	Specs []configKeySpec
}

// configKeyFamilies returns the table of each family of ConfigMap keys.
// Keys of a family with annotations are in its file (proxy.go, ssl.go,
// backend.go), the others in configmap_*.go.
func configKeyFamilies() []configKeyFamily {
	return []configKeyFamily{
		{"authexternal", authExternalConfigKeys},
		{"authsecret", authSecretConfigKeys},
		{"backend", backendConfigKeys},
		{"configmap_client", clientConfigKeys},
		{"configmap_gzip", gzipConfigKeys},
		{"configmap_block", blockConfigKeys},
		{"configmap_logging", loggingConfigKeys},
		{"configmap_modules", moduleConfigKeys},
		{"configmap_policy", policyConfigKeys},
		{"configmap_realip", realIPConfigKeys},
		{"configmap_redirect", redirectConfigKeys},
		{"configmap_server", serverConfigKeys},
		{"configmap_tls", tlsConfigKeys},
		{"configmap_tuning", tuningConfigKeys},
		{"errorpages", errorPageConfigKeys},
		{"headers", headersConfigKeys},
		{"proxy", proxyConfigKeys},
		{"ssl", sslConfigKeys},
	}
}

// configKeySpecs is the table of supported ConfigMap keys: the tables of
// configKeyFamilies joined and sorted by key, for lookupConfigKeySpec's
// binary search. It is never modified.
var configKeySpecs = joinConfigKeySpecs(configKeyFamilies())

// joinConfigKeySpecs returns the specs of families in one new slice sorted
// by key. A key in two families is a bug that TestConfigKeyFamilies
// reports.
func joinConfigKeySpecs(families []configKeyFamily) []configKeySpec {
	var all []configKeySpec
	for _, f := range families {
		all = append(all, f.Specs...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Key < all[j].Key })
	return all
}
