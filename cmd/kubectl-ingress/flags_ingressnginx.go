package main

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// What the controller does with a flag of ingress-nginx's controller that
// it has no flag of its own for: ingress-nginx's Helm chart (and the
// manifests of its users) pass them, and a bare "unknown flag" stops the
// controller without saying what to do.
type compatAction int

const (
	// compatMapped: the value sets one of our flags (apply does).
	compatMapped compatAction = iota
	// compatIgnored: accepted with a warning; it changes nothing that
	// matters (metrics tuning, a feature always on).
	compatIgnored
	// compatRefused: the controller would serve differently from what
	// the flag asks: it does not start, and the message says what to do.
	compatRefused
)

// compatFlag is one ingress-nginx controller flag.
type compatFlag struct {
	name string
	// boolean flags take no value (--disable-leader-election).
	boolean bool
	action  compatAction
	// why is the message: what we do instead.
	why string
	// harmless, when set, are the values that change nothing (e.g.
	// --annotations-prefix=nginx.ingress.kubernetes.io): accepted with
	// no warning even when the flag is refused otherwise.
	harmless []string
}

// ingressNginxFlags are ingress-nginx's controller flags that we have no
// flag of the same name for (ours of the same name are in
// controller --help); docs/migrating.md's tables list them, a test checks.
var ingressNginxFlags = []compatFlag{
	{name: "apiserver-host", action: compatMapped, why: "--server"},
	{name: "healthz-port", action: compatMapped, why: "the port of --health-addr and --metrics-addr"},
	{name: "healthz-host", action: compatMapped, why: "the host of --health-addr and --metrics-addr"},
	{name: "status-port", action: compatMapped, why: "the port of --status-address"},

	{name: "disable-leader-election", boolean: true, action: compatIgnored, why: "every replica serves traffic; the Lease only decides which one writes Ingress status (--update-status=false writes none)", harmless: []string{"false"}},
	{name: "enable-metrics", boolean: true, action: compatIgnored, why: `/metrics is always served on --metrics-addr ("" turns it off), with ingress-nginx's metrics among ours (docs/metrics.md)`, harmless: []string{"true"}},
	{name: "enable-aggregate-api-metrics", boolean: true, action: compatIgnored, why: "not implemented: the request metrics are per Ingress, path and status"},
	{name: "bucket-factor", action: compatIgnored, why: "the request histograms are classic ones (--time-buckets …), not native"},
	{name: "max-buckets", action: compatIgnored, why: "the request histograms are classic ones (--time-buckets …), not native"},
	{name: "monitor-max-batch-size", action: compatIgnored, why: "each nginx worker adds its requests to a shared dict every second"},
	{name: "enable-annotation-validation", boolean: true, action: compatIgnored, why: "annotation values are always validated", harmless: []string{"true"}},
	{name: "health-check-timeout", action: compatIgnored, why: "/healthz answers from the controller itself"},
	{name: "profiler-port", action: compatIgnored, why: "with --profiling, pprof is served on --metrics-addr"},
	{name: "profiler-address", action: compatIgnored, why: "with --profiling, pprof is served on --metrics-addr"},
	{name: "stream-port", action: compatIgnored, why: "TCP/UDP endpoints go through the status server (--status-address)"},
	{name: "sync-period", action: compatIgnored, why: "the informers need no resync"},
	{name: "deep-inspect", boolean: true, action: compatIgnored, why: "snippets are translated through an allowlist, never copied as text, and every value is validated"},
	{name: "dynamic-configuration-retries", action: compatIgnored, why: "Lua payloads are retried on the next sync"},
	{name: "disable-full-test", boolean: true, action: compatIgnored, why: "the admission webhook never runs nginx -t"},
	{name: "internal-logger-address", action: compatIgnored, why: "there is no internal syslog"},
	{name: "enable-ssl-chain-completion", boolean: true, action: compatIgnored, why: "certificates are served as the Secret holds them", harmless: []string{"false"}},
	{name: "enable-topology-aware-routing", boolean: true, action: compatIgnored, why: "every ready endpoint is balanced over", harmless: []string{"false"}},
	{name: "default-server-port", action: compatIgnored, why: "the catch-all server listens on --http-port and --https-port"},

	{name: "health-check-path", action: compatRefused, why: "/healthz and /readyz are the only health paths: point the probes at them", harmless: []string{"/healthz"}},
	{name: "annotations-prefix", action: compatRefused, why: "the annotations are always nginx.ingress.kubernetes.io/*", harmless: []string{"nginx.ingress.kubernetes.io"}},
	{name: "disable-catch-all", boolean: true, action: compatRefused, why: "Ingresses with a defaultBackend and no rules are always served", harmless: []string{"false"}},
	{name: "ingress-class-by-name", boolean: true, action: compatRefused, why: "an IngressClass is ours by its spec.controller (--controller-class); set it to our controller value", harmless: []string{"false"}},
	{name: "watch-namespace-selector", action: compatRefused, why: "not implemented: --watch-namespace watches one namespace, or all"},
	{name: "report-node-internal-ip-address", boolean: true, action: compatRefused, why: "not implemented: give the addresses with --publish-status-address", harmless: []string{"false"}},
	{name: "disable-svc-external-name", boolean: true, action: compatRefused, why: "not implemented", harmless: []string{"false"}},
}

// compatFlags registers ingressNginxFlags on a flag set, hidden, and
// applies them once parsed.
type compatFlags struct {
	values map[string]*string
	fs     *pflag.FlagSet
}

func (c *compatFlags) AddFlags(fs *pflag.FlagSet) {
	c.fs, c.values = fs, map[string]*string{}
	for _, f := range ingressNginxFlags {
		if fs.Lookup(f.name) != nil {
			continue // a flag of ours now: it means what it says
		}
		v := new(string)
		fs.StringVar(v, f.name, "", "ingress-nginx's flag: "+f.why)
		if f.boolean {
			fs.Lookup(f.name).NoOptDefVal = "true"
		}
		_ = fs.MarkHidden(f.name)
		c.values[f.name] = v
	}
}

// compatTarget is what the mapped flags set.
type compatTarget struct {
	// set gives a value to one of our flags unless the user gave it.
	set func(name, value string) error
	// get reads one of our flags.
	get func(name string) string
}

// apply maps, warns about (on w) or refuses the ingress-nginx flags given.
func (c *compatFlags) apply(w io.Writer, t compatTarget) error {
	if c.fs == nil {
		return nil
	}
	for _, f := range ingressNginxFlags {
		p, ok := c.values[f.name]
		if !ok || !c.fs.Changed(f.name) {
			continue
		}
		v := *p
		if f.boolean {
			if _, err := strconv.ParseBool(v); err != nil {
				return &usageError{err: fmt.Errorf("--%s must be true or false, got %q", f.name, v)}
			}
		}
		harmless := false
		for _, h := range f.harmless {
			if v == h || (f.boolean && boolEqual(v, h)) {
				harmless = true
			}
		}
		if harmless {
			continue
		}
		switch f.action {
		case compatMapped:
			if err := c.mapFlag(f.name, v, t); err != nil {
				return &usageError{err: err}
			}
		case compatIgnored:
			fmt.Fprintf(w, "warning: ingress-nginx's flag --%s=%s is ignored: %s\n", f.name, v, f.why)
		case compatRefused:
			return &usageError{err: fmt.Errorf("ingress-nginx's flag --%s=%s is not accepted: %s (docs/migrating.md, section 3)", f.name, v, f.why)}
		}
	}
	return nil
}

func boolEqual(a, b string) bool {
	x, err1 := strconv.ParseBool(a)
	y, err2 := strconv.ParseBool(b)
	return err1 == nil && err2 == nil && x == y
}

// mapFlag gives an ingress-nginx flag's value to our flags.
func (c *compatFlags) mapFlag(name, v string, t compatTarget) error {
	port := func() (int, error) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 65535 {
			return 0, fmt.Errorf("--%s must be a port between 1 and 65535, got %q", name, v)
		}
		return n, nil
	}
	withPort := func(addr string, p int) string {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = ""
		}
		return net.JoinHostPort(host, strconv.Itoa(p))
	}
	withHost := func(addr, h string) string {
		_, p, err := net.SplitHostPort(addr)
		if err != nil {
			p = strconv.Itoa(defaultControllerPort)
		}
		return net.JoinHostPort(h, p)
	}
	switch name {
	case "apiserver-host":
		return t.set("server", v)
	case "status-port":
		p, err := port()
		if err != nil {
			return err
		}
		return t.set("status-address", withPort(t.get("status-address"), p))
	case "healthz-port":
		p, err := port()
		if err != nil {
			return err
		}
		if err := t.set("health-addr", withPort(t.get("health-addr"), p)); err != nil {
			return err
		}
		return t.set("metrics-addr", withPort(t.get("metrics-addr"), p))
	case "healthz-host":
		if strings.ContainsAny(v, ":/ ") && net.ParseIP(v) == nil {
			return fmt.Errorf("--healthz-host must be a host name or an IP address, got %q", v)
		}
		if err := t.set("health-addr", withHost(t.get("health-addr"), v)); err != nil {
			return err
		}
		return t.set("metrics-addr", withHost(t.get("metrics-addr"), v))
	}
	return fmt.Errorf("--%s: no mapping", name)
}

// flagSetTarget sets and reads our flags on fs; a flag the user gave
// (before the mapping started) keeps its value.
func flagSetTarget(fs *pflag.FlagSet) compatTarget {
	given := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { given[f.Name] = true })
	return compatTarget{
		set: func(name, value string) error {
			if fs.Lookup(name) == nil || given[name] {
				return nil
			}
			return fs.Set(name, value)
		},
		get: func(name string) string {
			if f := fs.Lookup(name); f != nil {
				return f.Value.String()
			}
			return ""
		},
	}
}

// compatFlagsMarkdown is the table of docs/migrating.md (section 3) of
// ingressNginxFlags: flags with the same answer share a row.
func compatFlagsMarkdown() string {
	// Those the controller has as its own flags are in its --help.
	o := NewControllerOptions(genericiooptions.IOStreams{})
	newCmdController(o)
	var b strings.Builder
	b.WriteString("| ingress-nginx flag | what kubectl-ingress does |\n|---|---|\n")
	verb := map[compatAction]string{compatMapped: "**taken** as ", compatIgnored: "**ignored** with a warning: ", compatRefused: "**refused** (the controller does not start): "}
	for _, action := range []compatAction{compatMapped, compatIgnored, compatRefused} {
		var order []string
		names := map[string][]string{}
		for _, f := range ingressNginxFlags {
			if _, compat := o.compat.values[f.name]; f.action != action || !compat {
				continue
			}
			if _, ok := names[f.why]; !ok {
				order = append(order, f.why)
			}
			n := "`--" + f.name + "`"
			for _, h := range f.harmless {
				n += " (`--" + f.name + "=" + h + "` is accepted)"
			}
			names[f.why] = append(names[f.why], n)
		}
		for _, why := range order {
			fmt.Fprintf(&b, "| %s | %s%s |\n", strings.Join(names[why], ", "), verb[action], strings.ReplaceAll(why, "|", "\\|"))
		}
	}
	return b.String()
}
