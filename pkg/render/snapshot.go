package render

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Snapshot is the set of objects one Build sees. Order does not matter:
// Build sorts what it needs.
type Snapshot struct {
	Ingresses      []*networkingv1.Ingress
	IngressClasses []*networkingv1.IngressClass
	Services       []*corev1.Service
	EndpointSlices []*discoveryv1.EndpointSlice
	Secrets        []*corev1.Secret
	ConfigMaps     []*corev1.ConfigMap
	// UnreadIngresses are Ingresses the source found in an API version
	// Build does not read (extensions/v1beta1, networking.k8s.io/v1beta1;
	// manifest files only: the API server converts them). Build reports
	// each with Options.ReportSkipped.
	UnreadIngresses []UnreadIngress
}

// UnreadIngress names an Ingress of an API version Build does not read.
type UnreadIngress struct {
	APIVersion      string
	Namespace, Name string
}

// Options are the controller flags that change what Build produces.
type Options struct {
	// IngressClass is the class name this controller serves (--ingress-class).
	IngressClass string
	// ControllerClass is the IngressClass spec.controller value this
	// controller serves (--controller-class).
	ControllerClass string
	// WatchIngressWithoutClass serves Ingresses with no class at all
	// (--watch-ingress-without-class).
	WatchIngressWithoutClass bool
	// ConfigMap is "namespace/name" of the controller ConfigMap; "" for none.
	ConfigMap string
	// DefaultSSLCertificate is "namespace/name" of a TLS Secret used as the
	// default certificate (--default-ssl-certificate); "" for the built-in
	// self-signed one, which the caller provides as a file.
	DefaultSSLCertificate string
	// DefaultBackendService is "namespace/name" of the Service (its first
	// port) that answers when no rule matches and renders the custom error
	// pages of Ingresses without a default-backend annotation
	// (--default-backend-service); "" for none: nginx answers 404 itself.
	DefaultBackendService string
	// TCPServicesConfigMap and UDPServicesConfigMap are "namespace/name"
	// of the ConfigMaps of TCP and UDP services
	// (--tcp-services-configmap, --udp-services-configmap); "" for none.
	TCPServicesConfigMap string
	UDPServicesConfigMap string
	// EnableSSLPassthrough serves the ssl-passthrough annotation
	// (--enable-ssl-passthrough): the HTTPS port routes by SNI.
	EnableSSLPassthrough bool
	// ReservedPorts are the ports nginx uses itself (HTTP, HTTPS, status,
	// the passthrough loopback ports): a TCP or UDP service on one of
	// them is a Problem.
	ReservedPorts []int
	// Quarantined are Ingresses left out of the config because nginx -t
	// refused a config they wrote (pkg/controller/quarantine.go decides
	// which, and for how long): each is skipped whole, as if it were of
	// another class, with a Problem that quotes the value, nginx's message.
	// nil or empty for none.
	Quarantined map[model.ObjectRef]string
	// AllowCrossNamespaceHostSharing restores ingress-nginx's merge of a
	// host's paths whatever their namespaces
	// (--allow-cross-namespace-host-sharing): a younger Ingress may take
	// requests from an older one of another namespace (a longer prefix, an
	// Exact path, a regex), and use-regex or rewrite-target on any Ingress
	// of a host makes every path of the host a regex. By default the
	// younger path is a Problem and the regex mode stays in its namespace.
	AllowCrossNamespaceHostSharing bool
	// ReportSkipped makes a Problem of each input left out, whose reason
	// starts with SkippedReason: an Ingress of another class (or of no
	// class, none being served), each of Snapshot.UnreadIngresses, and
	// with ConfigMapRequired a ConfigMap the snapshot does not hold. The
	// commands that read files set it (render, diff, the controller's
	// --from-files); a controller on a cluster does not, where Ingresses
	// of other classes are the normal case and no Event should name them.
	ReportSkipped bool
	// ConfigMapRequired says that ConfigMap was asked for (the flag was
	// given), so that its absence is reported with ReportSkipped; the
	// default name is often absent from manifests and then not reported.
	ConfigMapRequired bool
	// GeoIP2 are the MaxMind databases that the ConfigMap's use-geoip2
	// reads (--maxmind-db-dir, --maxmind-edition-ids), as the caller found
	// them: render does no I/O.
	GeoIP2 GeoIP2Databases
}

// SkippedReason starts the reason of every Problem of ReportSkipped: input
// left out, not input found wrong.
const SkippedReason = "skipped: "

// DefaultOptions returns the ingress-nginx defaults.
func DefaultOptions() Options {
	return Options{
		IngressClass:    "nginx",
		ControllerClass: "k8s.io/ingress-nginx",
		ConfigMap:       "ingress-nginx/ingress-nginx-controller",
		GeoIP2:          DefaultGeoIP2Databases(),
	}
}
