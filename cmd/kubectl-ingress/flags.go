package main

import (
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// ManifestFlags are the kubectl-style flags that name manifest files.
type ManifestFlags struct {
	Filenames []string
	Recursive bool
	Namespace string
	// MaxFileSize is the largest manifest file (or stdin) read.
	MaxFileSize int64
}

// NewManifestFlags returns the defaults (namespace "default", as kubectl).
func NewManifestFlags() ManifestFlags {
	return ManifestFlags{Namespace: "default", MaxFileSize: manifest.DefaultMaxFileSize}
}

// AddFlags registers -f, -R, -n and --max-manifest-size.
func (f *ManifestFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringSliceVarP(&f.Filenames, "filename", "f", nil, "A manifest file, a directory of them, or - for stdin (repeatable)")
	fs.BoolVarP(&f.Recursive, "recursive", "R", false, "Read the directories given with -f recursively")
	fs.StringVarP(&f.Namespace, "namespace", "n", f.Namespace, "The namespace of objects whose manifests name none")
	addMaxManifestSize(fs, &f.MaxFileSize)
}

// addMaxManifestSize registers --max-manifest-size.
func addMaxManifestSize(fs *pflag.FlagSet, bytes *int64) {
	fs.Var(sizeValue{bytes}, "max-manifest-size", "The largest manifest file (or standard input) read, e.g. 64Mi; only regular files are read")
}

// Validate checks that there is input.
func (f *ManifestFlags) Validate() error {
	if len(f.Filenames) == 0 {
		return errNoInput
	}
	return nil
}

// Read reads the manifests; stdin serves "-".
func (f *ManifestFlags) Read(stdin io.Reader) (*manifest.Result, error) {
	return manifest.Read(f.Filenames, manifest.Options{Recursive: f.Recursive, DefaultNamespace: f.Namespace, Stdin: stdin, MaxFileSize: f.MaxFileSize})
}

// RenderFlags are the controller flags that change the rendered config.
type RenderFlags struct {
	IngressClass             string
	ControllerClass          string
	WatchIngressWithoutClass bool
	ConfigMap                string
	DefaultSSLCertificate    string
	DefaultBackendService    string
	HTTPPort                 int
	HTTPSPort                int
	ListenAddress            string
	// ipv6 adds listeners on [::] (nginxconf.ConfOptions.IPv6): the
	// controller on a cluster sets it when its pod has IPv6 (podHasIPv6).
	ipv6            bool
	StatusAddress   string
	WorkerProcesses string
	// TCP/UDP services and SSL passthrough (nginx stream servers).
	TCPServicesConfigMap    string
	UDPServicesConfigMap    string
	EnableSSLPassthrough    bool
	SSLPassthroughProxyPort int
	SSLPassthroughHopPort   int
	// ModulesDir is --nginx-modules-dir ("" for Debian's, or what nginx -V
	// says where nginx runs); BuiltinModules are the module files nginx
	// has compiled in (OpenResty), set from nginx -V.
	ModulesDir     string
	BuiltinModules []string
	// ControllerPorts are the ports the controller process serves itself
	// (health, metrics, webhook): a TCP or UDP service there would fail
	// nginx's reload. render reserves ingress-nginx's health port 10254;
	// the controller command sets them from its own flags.
	ControllerPorts []int
	// AllowCrossNamespaceHostSharing restores ingress-nginx's merge of a
	// host's paths across namespaces (see render.Options).
	AllowCrossNamespaceHostSharing bool
	// ReportSkipped reports the input left out as Problems (see
	// render.Options.ReportSkipped): set by the commands that read files,
	// never by a controller on a cluster. No flag binds it.
	ReportSkipped bool
	// Routing is --routing: nginxconf.RoutingNginx (classic) or
	// nginxconf.RoutingLua.
	Routing string
	// GeoIP2 are --maxmind-db-dir and --maxmind-edition-ids.
	GeoIP2 GeoIP2Flags
	// flags is the flag set AddFlags registered on: whether --configmap
	// was given decides whether its absence is reported.
	flags *pflag.FlagSet

	// testRefusal is nginxconf.ConfOptions.TestRefusal, the writer's test
	// seam: only the command tests set it (through newCmdController), no
	// flag binds it.
	testRefusal string
}

// NewRenderFlags returns the ingress-nginx defaults.
func NewRenderFlags() RenderFlags {
	b, c := render.DefaultOptions(), nginxconf.DefaultConfOptions()
	return RenderFlags{
		IngressClass:    b.IngressClass,
		ControllerClass: b.ControllerClass,
		ConfigMap:       b.ConfigMap,
		HTTPPort:        c.HTTPPort,
		HTTPSPort:       c.HTTPSPort,
		StatusAddress:   c.StatusAddress,
		ControllerPorts: []int{defaultControllerPort},
		GeoIP2:          NewGeoIP2Flags(),
		Routing:         nginxconf.RoutingLua,

		SSLPassthroughProxyPort: c.SSLPassthroughProxyPort,
		SSLPassthroughHopPort:   c.SSLPassthroughHopPort,
	}
}

// AddFlags registers the flags, named as ingress-nginx names them.
func (f *RenderFlags) AddFlags(fs *pflag.FlagSet) {
	f.flags = fs
	fs.StringVar(&f.IngressClass, "ingress-class", f.IngressClass, "The IngressClass name this controller serves")
	fs.StringVar(&f.ControllerClass, "controller-class", f.ControllerClass, "The spec.controller value of the IngressClasses this controller serves")
	fs.BoolVar(&f.WatchIngressWithoutClass, "watch-ingress-without-class", false, "Also serve Ingresses that name no class")
	fs.StringVar(&f.ConfigMap, "configmap", f.ConfigMap, "The controller ConfigMap, namespace/name")
	fs.StringVar(&f.DefaultSSLCertificate, "default-ssl-certificate", "", "A TLS Secret (namespace/name) served when no host matches; default: a self-signed certificate")
	fs.StringVar(&f.DefaultBackendService, "default-backend-service", "", "A Service (namespace/name, its first port) that answers requests no rule matches and renders the custom-http-errors pages of Ingresses without a default-backend annotation; default: nginx answers 404 itself")
	fs.IntVar(&f.HTTPPort, "http-port", f.HTTPPort, "The port nginx serves HTTP on")
	fs.IntVar(&f.HTTPSPort, "https-port", f.HTTPSPort, "The port nginx serves HTTPS on")
	fs.StringVar(&f.ListenAddress, "listen-address", "", "The address nginx listens on for HTTP and HTTPS; empty for all")
	fs.StringVar(&f.StatusAddress, "status-address", f.StatusAddress, "The loopback IP:port of the nginx status server (Lua API), which returns private keys")
	fs.StringVar(&f.WorkerProcesses, "worker-processes", "", "Override the ConfigMap's worker-processes")
	fs.StringVar(&f.TCPServicesConfigMap, "tcp-services-configmap", "", `A ConfigMap (namespace/name) of TCP services: "<port>": "namespace/service:port[:PROXY][:PROXY]"`)
	fs.StringVar(&f.UDPServicesConfigMap, "udp-services-configmap", "", `A ConfigMap (namespace/name) of UDP services: "<port>": "namespace/service:port"`)
	fs.BoolVar(&f.EnableSSLPassthrough, "enable-ssl-passthrough", false, "Serve the ssl-passthrough annotation: the HTTPS port routes TLS connections by SNI")
	fs.IntVar(&f.SSLPassthroughProxyPort, "ssl-passthrough-proxy-port", f.SSLPassthroughProxyPort, "With --enable-ssl-passthrough: the loopback port of the HTTPS servers behind the SNI router")
	fs.BoolVar(&f.AllowCrossNamespaceHostSharing, "allow-cross-namespace-host-sharing", false, "Merge the paths of a host across namespaces as ingress-nginx does: a younger Ingress may then take requests from an older one of another namespace (a longer prefix, an Exact path, a regex, a canary), and use-regex on one Ingress makes every path of the host a regex")
	fs.IntVar(&f.SSLPassthroughHopPort, "ssl-passthrough-hop-port", f.SSLPassthroughHopPort, "With --enable-ssl-passthrough: the loopback port through which passthrough connections reach their backend")
	fs.StringVar(&f.Routing, "routing", f.Routing, `How nginx routes requests: "nginx", a server block per host and a location per path (a new host or path reloads nginx), or "lua", a fixed nginx.conf and the hosts as Lua data (no reload; a host with a setting the Lua router cannot apply keeps a server block, and render and diff say why)`)
	f.GeoIP2.AddFlags(fs)
	fs.StringVar(&f.ModulesDir, "nginx-modules-dir", "", "The directory of nginx's dynamic modules (Lua, NDK, headers-more, stream) that nginx.conf loads; default: what 'nginx -V' says where nginx runs (--validate, controller), else Debian's /usr/lib/nginx/modules")
}

// Validate checks the flag values.
func (f *RenderFlags) Validate() error {
	for _, p := range []struct {
		name string
		v    int
	}{{"--http-port", f.HTTPPort}, {"--https-port", f.HTTPSPort}, {"--ssl-passthrough-proxy-port", f.SSLPassthroughProxyPort}, {"--ssl-passthrough-hop-port", f.SSLPassthroughHopPort}} {
		if p.v < 1 || p.v > 65535 {
			return fmt.Errorf("%s must be between 1 and 65535, got %d", p.name, p.v)
		}
	}
	for _, p := range []struct{ name, v string }{{"--configmap", f.ConfigMap}, {"--default-ssl-certificate", f.DefaultSSLCertificate}, {"--default-backend-service", f.DefaultBackendService}, {"--tcp-services-configmap", f.TCPServicesConfigMap}, {"--udp-services-configmap", f.UDPServicesConfigMap}} {
		if p.v != "" && strings.Count(p.v, "/") != 1 {
			return fmt.Errorf("%s must be namespace/name, got %q", p.name, p.v)
		}
	}
	if f.EnableSSLPassthrough {
		ports := []int{f.HTTPPort, f.HTTPSPort, f.SSLPassthroughProxyPort, f.SSLPassthroughHopPort}
		for i, p := range ports {
			if slices.Contains(ports[:i], p) {
				return fmt.Errorf("--http-port, --https-port, --ssl-passthrough-proxy-port and --ssl-passthrough-hop-port must differ, got %v", ports)
			}
		}
	}
	if err := nginxconf.CheckRouting(f.Routing); err != nil {
		return err
	}
	if err := f.GeoIP2.Validate(); err != nil {
		return err
	}
	return validateStatusAddress(f.StatusAddress)
}

// BuildOptions gives the options of render.Build.
func (f *RenderFlags) BuildOptions() render.Options {
	return render.Options{
		IngressClass:             f.IngressClass,
		ControllerClass:          f.ControllerClass,
		WatchIngressWithoutClass: f.WatchIngressWithoutClass,
		ConfigMap:                f.ConfigMap,
		DefaultSSLCertificate:    f.DefaultSSLCertificate,
		DefaultBackendService:    f.DefaultBackendService,
		TCPServicesConfigMap:     f.TCPServicesConfigMap,
		UDPServicesConfigMap:     f.UDPServicesConfigMap,
		EnableSSLPassthrough:     f.EnableSSLPassthrough,
		ReservedPorts:            f.reservedPorts(),

		AllowCrossNamespaceHostSharing: f.AllowCrossNamespaceHostSharing,

		ReportSkipped:     f.ReportSkipped,
		ConfigMapRequired: f.flags != nil && f.flags.Changed("configmap"),
		GeoIP2:            f.GeoIP2.databases(),
	}
}

// reservedPorts are the ports nginx listens on itself, which TCP and UDP
// services cannot take.
func (f *RenderFlags) reservedPorts() []int {
	ports := []int{f.HTTPPort, f.HTTPSPort}
	if _, p, err := net.SplitHostPort(f.StatusAddress); err == nil {
		if n, err := strconv.Atoi(p); err == nil {
			ports = append(ports, n)
		}
	}
	if f.EnableSSLPassthrough {
		ports = append(ports, f.SSLPassthroughProxyPort, f.SSLPassthroughHopPort)
	}
	return append(ports, f.ControllerPorts...)
}

// defaultControllerPort is ingress-nginx's health and metrics port.
const defaultControllerPort = 10254

// addressPorts gives the ports of host:port addresses, skipping "" and
// the addresses without a numeric port.
func addressPorts(addrs ...string) []int {
	var ports []int
	for _, a := range addrs {
		if _, p, err := net.SplitHostPort(a); err == nil {
			if n, err := strconv.Atoi(p); err == nil && n > 0 && !slices.Contains(ports, n) {
				ports = append(ports, n)
			}
		}
	}
	return ports
}

// ConfOptions gives the options of nginxconf.NGINXConf.
func (f *RenderFlags) ConfOptions() nginxconf.ConfOptions {
	c := nginxconf.DefaultConfOptions()
	c.HTTPPort, c.HTTPSPort = f.HTTPPort, f.HTTPSPort
	c.ListenAddress = f.ListenAddress
	c.IPv6 = f.ipv6
	c.StatusAddress = f.StatusAddress
	c.WorkerProcesses = f.WorkerProcesses
	c.SSLPassthroughProxyPort, c.SSLPassthroughHopPort = f.SSLPassthroughProxyPort, f.SSLPassthroughHopPort
	c.TestRefusal = f.testRefusal
	if f.ModulesDir != "" {
		c.ModulesDir = f.ModulesDir
	}
	c.BuiltinModules = f.BuiltinModules
	c.GeoIP2Dir = f.GeoIP2.DBDir
	c.Routing = f.Routing
	return c
}
