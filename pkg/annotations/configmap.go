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
// its default; a key this controller does not implement is a Problem
// saying it is ignored.
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
			reason = fmt.Sprintf("invalid value %s: %v; using the default (%s)", ValueQuote(v), err, spec.Default)
		case strings.HasSuffix(key, "-snippet"):
			reason = "snippets are not supported: they inject raw nginx configuration, " +
				"the cause of the CVE-2025-1974 class of injection vulnerabilities; the key is ignored"
		case key == "allow-snippet-annotations":
			reason = "kubectl-ingress never allows snippet annotations; the key is ignored"
		default:
			reason = "not supported by kubectl-ingress; the key is ignored"
		}
		problems = append(problems, model.Problem{Object: cm, Field: ConfigField(key), Reason: reason})
	}
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

func configGzipTypes(g *model.Global, v string) error {
	types := strings.Fields(v)
	for _, t := range types {
		if _, err := valueMIMEType(t); err != nil {
			return fmt.Errorf("entry %s %v", ValueQuote(t), err)
		}
	}
	g.GzipTypes = types
	return nil
}

func configWorkerProcesses(g *model.Global, v string) error {
	if v == "auto" {
		g.WorkerProcesses = v
		return nil
	}
	n, err := valueInt(v, 1, 1024)
	if err != nil {
		return errors.New(`must be "auto" or a whole number from 1 to 1024`)
	}
	g.WorkerProcesses = strconv.Itoa(n)
	return nil
}

// MaxUpstreamKeepalive bounds upstream-keepalive-connections. nginx
// allocates the whole keepalive cache when it reads the configuration,
// 152 bytes a connection (nginx 1.22.1, 64-bit): "keepalive 2147483647"
// fails nginx -t with "malloc(326417514344) failed (12: Cannot allocate
// memory)", 10000000 takes 1.5 GB and 1.5 s, 65535 takes 10 MB. A worker
// cannot use more idle connections to one backend than it has source
// ports anyway.
const MaxUpstreamKeepalive = 65535

// configKeySpecs is the table of supported ConfigMap keys, sorted by key.
// It is never modified.
var configKeySpecs = []configKeySpec{
	{Key: "gzip-level", Kind: kindInt, Default: "1", Description: "Compression level of gzip, 1 to 9.",
		set: configInt(1, 9, func(g *model.Global) *int { return &g.GzipLevel })},
	{Key: "gzip-types", Kind: kindMIMEList, Description: "MIME types compressed when use-gzip is on.",
		Default: strings.Join(model.DefaultGlobal().GzipTypes, " "),
		set:     configGzipTypes},
	{Key: "hsts", Kind: kindBool, Default: "true", Description: "Send Strict-Transport-Security on HTTPS answers.",
		set: configBool(func(g *model.Global) *bool { return &g.HSTS })},
	{Key: "hsts-include-subdomains", Kind: kindBool, Default: "true", Description: "Add includeSubDomains to Strict-Transport-Security.",
		set: configBool(func(g *model.Global) *bool { return &g.HSTSIncludeSubdomains })},
	{Key: "hsts-max-age", Kind: kindSeconds, Default: "31536000", Description: "max-age of Strict-Transport-Security.",
		set: configInt(0, MaxInt32, func(g *model.Global) *int { return &g.HSTSMaxAge })},
	{Key: "hsts-preload", Kind: kindBool, Default: "false", Description: "Add preload to Strict-Transport-Security.",
		set: configBool(func(g *model.Global) *bool { return &g.HSTSPreload })},
	{Key: "keep-alive", Kind: kindSeconds, Default: "75", Description: "How long an idle client connection stays open (0: no keep-alive).",
		set: configInt(0, ValueMaxSeconds, func(g *model.Global) *int { return &g.KeepAlive })},
	{Key: "keep-alive-requests", Kind: kindInt, Default: "1000", Description: "Requests served over one client connection.",
		set: configInt(1, MaxInt32, func(g *model.Global) *int { return &g.KeepAliveRequests })},
	{Key: "load-balance", Kind: kindEnum, Default: "round_robin", Description: `Default balancing algorithm: "round_robin" or "ewma".`,
		set: func(g *model.Global, v string) error {
			lb, err := valueOneOf(v, false, "round_robin", "ewma")
			if err == nil {
				g.LoadBalance = lb
			}
			return err
		}},
	{Key: "proxy-body-size", Kind: kindSize, Default: "1m", Description: `Largest request body accepted ("0": no limit).`,
		set: configSize(func(g *model.Global) *string { return &g.ProxyBodySize })},
	{Key: "proxy-buffer-size", Kind: kindBufferSize, Default: "4k", Description: "Size of the buffer for the first part of a backend's answer, at most 1024m.",
		set: func(g *model.Global, v string) error {
			s, err := valueBufferSize(v)
			if err == nil {
				g.ProxyBufferSize = s
			}
			return err
		}},
	{Key: "proxy-buffering", Kind: kindOnOff, Default: "off", Description: "Buffer the backends' answers.",
		set: func(g *model.Global, v string) error {
			b, err := valueOnOff(v)
			if err == nil {
				g.ProxyBuffering = b
			}
			return err
		}},
	{Key: "proxy-connect-timeout", Kind: kindSeconds, Default: "5", Description: "Timeout to connect to a backend.",
		set: configSeconds(func(g *model.Global) *int { return &g.ProxyConnectTimeout })},
	{Key: "proxy-read-timeout", Kind: kindSeconds, Default: "60", Description: "Timeout between two reads from a backend.",
		set: configSeconds(func(g *model.Global) *int { return &g.ProxyReadTimeout })},
	{Key: "proxy-send-timeout", Kind: kindSeconds, Default: "60", Description: "Timeout between two writes to a backend.",
		set: configSeconds(func(g *model.Global) *int { return &g.ProxySendTimeout })},
	{Key: "server-tokens", Kind: kindBool, Default: "false", Description: "Send the nginx version in the Server header and error pages.",
		set: configBool(func(g *model.Global) *bool { return &g.ServerTokens })},
	{Key: "ssl-redirect", Kind: kindBool, Default: "true", Description: "Redirect HTTP to HTTPS for hosts with TLS.",
		set: configBool(func(g *model.Global) *bool { return &g.SSLRedirect })},
	{Key: "upstream-keepalive-connections", Kind: kindInt, Default: "320", Description: "Idle connections to backends kept open per worker, at most 65535 (0: none).",
		set: configInt(0, MaxUpstreamKeepalive, func(g *model.Global) *int { return &g.UpstreamKeepaliveConnections })},
	{Key: "use-forwarded-headers", Kind: kindBool, Default: "false", Description: "Trust the X-Forwarded-* headers of clients (behind another proxy).",
		set: configBool(func(g *model.Global) *bool { return &g.UseForwardedHeaders })},
	{Key: "use-gzip", Kind: kindBool, Default: "false", Description: "Compress answers with gzip.",
		set: configBool(func(g *model.Global) *bool { return &g.UseGzip })},
	{Key: "worker-processes", Kind: kindWorkers, Default: "auto", Description: `Number of nginx worker processes; "auto" for one per CPU.`,
		set: configWorkerProcesses},
}
