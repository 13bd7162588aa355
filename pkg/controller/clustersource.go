package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	listerscorev1 "k8s.io/client-go/listers/core/v1"
	listersdiscoveryv1 "k8s.io/client-go/listers/discovery/v1"
	listersnetworkingv1 "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// ClusterSourceConfig says what a ClusterSource watches and how it talks to
// the API server.
type ClusterSourceConfig struct {
	// Client talks to the API server. When nil, one is made from Config.
	Client kubernetes.Interface
	// Config is used when Client is nil; NewRESTConfig makes a tuned one.
	Config *rest.Config
	// Namespace restricts Ingresses, Services, EndpointSlices and Secrets
	// to one namespace (--watch-namespace); "" watches all namespaces.
	// IngressClasses are cluster-scoped and always watched.
	Namespace string
	// ConfigMap is "namespace/name" of the controller ConfigMap
	// (--configmap); only that ConfigMap is watched, in whatever
	// namespace it is. "" watches none.
	ConfigMap string
	// DefaultSSLCertificate is "namespace/name" of the Secret given by
	// --default-ssl-certificate; it is watched by name, whatever its
	// namespace and type. "" for none.
	DefaultSSLCertificate string
	// StreamConfigMaps are "namespace/name" of the TCP and UDP services
	// ConfigMaps (--tcp-services-configmap, --udp-services-configmap),
	// each watched by name like ConfigMap; "" entries are skipped.
	StreamConfigMaps []string
	// ResyncPeriod is the informers' resync period; 0 (the default) never
	// resyncs: watches are complete, resync only re-delivers the cache.
	ResyncPeriod time.Duration
}

// ClusterSource is the Source that watches the API server through
// client-go shared informers: Ingresses, IngressClasses, Services,
// EndpointSlices, Secrets of type kubernetes.io/tls and Opaque (plus the
// --default-ssl-certificate Secret by name) and the controller ConfigMap.
type ClusterSource struct {
	client    kubernetes.Interface
	namespace string
	server    string // the API server's URL, for logs ("" when given a Client)

	// factories share one informer per kind; each is restricted by a
	// namespace and a field selector (see newFactory).
	factories []informers.SharedInformerFactory
	// watched are the informers Run registers its handlers on.
	watched []watchedInformer
	listers listers

	mu      sync.Mutex
	started chan struct{} // closed by Run once the informers are started
	synced  []namedSynced
	running bool
}

const (
	// syncPollInterval is how often WaitForSync looks at the caches (as
	// cache.WaitForCacheSync does).
	syncPollInterval = 100 * time.Millisecond
	// syncLogInterval is how often WaitForSync says what it waits for.
	syncLogInterval = 10 * time.Second
)

// namedSynced is a handler registration's HasSynced and the kind it is for.
type namedSynced struct {
	name   string
	synced cache.InformerSynced
}

// listers read the informers' caches.
type listers struct {
	ingresses      listersnetworkingv1.IngressLister
	ingressClasses listersnetworkingv1.IngressClassLister
	services       listerscorev1.ServiceLister
	endpointSlices listersdiscoveryv1.EndpointSliceLister
	tlsSecrets     listerscorev1.SecretLister
	// opaqueSecrets are the Secrets of type Opaque: what auth-secret,
	// auth-tls-secret and proxy-ssl-secret usually name (htpasswd lines,
	// a CA bundle).
	opaqueSecrets listerscorev1.SecretLister
	// namedSecrets and configMaps hold at most the one object their
	// informer is restricted to.
	namedSecrets []listerscorev1.SecretLister
	configMaps   []listerscorev1.ConfigMapLister
	// allConfigMaps are every ConfigMap of the watched namespaces; the
	// snapshot takes from them only those that annotations or the
	// controller ConfigMap name (custom-headers, fastcgi-params-configmap,
	// add-headers, proxy-set-headers, auth-proxy-set-headers …).
	allConfigMaps listerscorev1.ConfigMapLister
}

var _ Source = (*ClusterSource)(nil)

// NewClusterSource makes the informers; nothing talks to the API server
// until Run.
func NewClusterSource(cfg ClusterSourceConfig) (*ClusterSource, error) {
	client := cfg.Client
	if client == nil {
		if cfg.Config == nil {
			return nil, errors.New("cluster source: neither a client nor a rest config")
		}
		var err error
		client, err = kubernetes.NewForConfig(cfg.Config)
		if err != nil {
			return nil, fmt.Errorf("cluster source: client: %w", err)
		}
	}
	s := &ClusterSource{client: client, namespace: cfg.Namespace, started: make(chan struct{})}
	if cfg.Client == nil {
		s.server = cfg.Config.Host
	}

	main := s.newFactory(cfg.ResyncPeriod, cfg.Namespace, "")
	ing := main.Networking().V1().Ingresses()
	class := main.Networking().V1().IngressClasses()
	svc := main.Core().V1().Services()
	eps := main.Discovery().V1().EndpointSlices()
	s.listers.ingresses = ing.Lister()
	s.listers.ingressClasses = class.Lister()
	s.listers.services = svc.Lister()
	s.listers.endpointSlices = eps.Lister()
	s.watch("Ingresses", ing.Informer(), kindIngress)
	s.watch("IngressClasses", class.Informer(), kindOther)
	s.watch("Services", svc.Informer(), kindOther)
	s.watch("EndpointSlices", eps.Informer(), kindOther)

	tls := s.newFactory(cfg.ResyncPeriod, cfg.Namespace, "type="+string(corev1.SecretTypeTLS)).Core().V1().Secrets()
	s.listers.tlsSecrets = tls.Lister()
	s.watch("TLS Secrets", tls.Informer(), kindOther)
	opaque := s.newFactory(cfg.ResyncPeriod, cfg.Namespace, "type="+string(corev1.SecretTypeOpaque)).Core().V1().Secrets()
	s.listers.opaqueSecrets = opaque.Lister()
	s.watch("Opaque Secrets", opaque.Informer(), kindOther)
	allCMs := main.Core().V1().ConfigMaps()
	s.listers.allConfigMaps = allCMs.Lister()
	s.watch("ConfigMaps", allCMs.Informer(), kindOther)

	if cfg.DefaultSSLCertificate != "" {
		ns, name, err := splitNamespacedName("--default-ssl-certificate", cfg.DefaultSSLCertificate)
		if err != nil {
			return nil, err
		}
		sec := s.newFactory(cfg.ResyncPeriod, ns, "metadata.name="+name).Core().V1().Secrets()
		s.listers.namedSecrets = append(s.listers.namedSecrets, sec.Lister())
		s.watch("Secret "+cfg.DefaultSSLCertificate, sec.Informer(), kindOther)
	}
	if cfg.ConfigMap != "" {
		ns, name, err := splitNamespacedName("--configmap", cfg.ConfigMap)
		if err != nil {
			return nil, err
		}
		cm := s.newFactory(cfg.ResyncPeriod, ns, "metadata.name="+name).Core().V1().ConfigMaps()
		s.listers.configMaps = append(s.listers.configMaps, cm.Lister())
		s.watch("ConfigMap "+cfg.ConfigMap, cm.Informer(), kindOther)
	}
	for i, name := range cfg.StreamConfigMaps {
		if name == "" || name == cfg.ConfigMap || slices.Contains(cfg.StreamConfigMaps[:i], name) {
			continue
		}
		ns, n, err := splitNamespacedName("--tcp-services-configmap/--udp-services-configmap", name)
		if err != nil {
			return nil, err
		}
		cm := s.newFactory(cfg.ResyncPeriod, ns, "metadata.name="+n).Core().V1().ConfigMaps()
		s.listers.configMaps = append(s.listers.configMaps, cm.Lister())
		s.watch("ConfigMap "+name, cm.Informer(), kindOther)
	}
	return s, nil
}

// Client is the clientset the source watches with; Events and Ingress
// status use the same one.
func (s *ClusterSource) Client() kubernetes.Interface { return s.client }

// Run registers changed on every informer, starts them and blocks until
// ctx ends. It may be called once.
func (s *ClusterSource) Run(ctx context.Context, changed func()) error {
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return errors.New("cluster source: Run called twice")
	}
	s.running = true
	s.mu.Unlock()

	logger := klog.FromContext(ctx).WithName("clustersource")
	logger.Info("Watching the API server", "server", s.server, "namespace", namespaceOrAll(s.namespace))
	synced := make([]namedSynced, 0, len(s.watched))
	for _, w := range s.watched {
		reg, err := w.informer.AddEventHandler(newHandler(w.kind, changed))
		if err != nil {
			return fmt.Errorf("cluster source: add event handler: %w", err)
		}
		synced = append(synced, namedSynced{name: w.name, synced: reg.HasSynced})
	}
	for _, f := range s.factories {
		f.StartWithContext(ctx)
	}
	s.mu.Lock()
	s.synced = synced
	close(s.started)
	s.mu.Unlock()

	<-ctx.Done()
	for _, f := range s.factories {
		f.Shutdown() // waits for the informers' goroutines
	}
	logger.V(2).Info("Stopped watching the API server")
	return nil
}

// WaitForSync blocks until Run has started the informers and every cache
// has seen its first complete list (and the handlers got its objects), or
// ctx ends. While it waits it logs which kinds are not synced yet, every
// syncLogInterval: client-go only reports an unreachable API server at
// high verbosity.
func (s *ClusterSource) WaitForSync(ctx context.Context) bool {
	select {
	case <-s.started:
	case <-ctx.Done():
		return false
	}
	s.mu.Lock()
	synced := s.synced
	s.mu.Unlock()
	logger := klog.FromContext(ctx).WithName("clustersource")
	tick := time.NewTicker(syncPollInterval)
	defer tick.Stop()
	start := time.Now()
	lastLog := start
	for {
		var waiting []string
		for _, n := range synced {
			if !n.synced() {
				waiting = append(waiting, n.name)
			}
		}
		if len(waiting) == 0 {
			logger.V(1).Info("Caches synced", "duration", time.Since(start).Round(time.Millisecond))
			return true
		}
		if time.Since(lastLog) >= syncLogInterval {
			lastLog = time.Now()
			logger.Info("Waiting for the API server: caches not synced yet", "kinds", waiting, "waited", time.Since(start).Round(time.Second))
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// Snapshot lists every cache. The objects are the caches' own: callers
// must not modify them.
func (s *ClusterSource) Snapshot() (render.Snapshot, error) {
	var snap render.Snapshot
	var err error
	all := labels.Everything()
	if snap.Ingresses, err = s.listers.ingresses.List(all); err != nil {
		return render.Snapshot{}, fmt.Errorf("list ingresses: %w", err)
	}
	if snap.IngressClasses, err = s.listers.ingressClasses.List(all); err != nil {
		return render.Snapshot{}, fmt.Errorf("list ingressclasses: %w", err)
	}
	if snap.Services, err = s.listers.services.List(all); err != nil {
		return render.Snapshot{}, fmt.Errorf("list services: %w", err)
	}
	if snap.EndpointSlices, err = s.listers.endpointSlices.List(all); err != nil {
		return render.Snapshot{}, fmt.Errorf("list endpointslices: %w", err)
	}
	if snap.Secrets, err = s.secrets(); err != nil {
		return render.Snapshot{}, err
	}
	for _, l := range s.listers.configMaps {
		cms, err := l.List(all)
		if err != nil {
			return render.Snapshot{}, fmt.Errorf("list configmaps: %w", err)
		}
		snap.ConfigMaps = append(snap.ConfigMaps, cms...)
	}
	snap.ConfigMaps = append(snap.ConfigMaps, s.referencedConfigMaps(snap)...)
	return snap, nil
}

// referencedConfigMaps are the ConfigMaps that the Ingresses' annotations
// and the ConfigMaps already in snap name, once each and not already in
// snap, sorted by reference; a missing one is left for render to report.
func (s *ClusterSource) referencedConfigMaps(snap render.Snapshot) []*corev1.ConfigMap {
	have := map[string]bool{}
	var refs []string
	for _, cm := range snap.ConfigMaps {
		have[cm.Namespace+"/"+cm.Name] = true
		refs = append(refs, annotations.ReferencedByControllerConfigMap(cm.Namespace, cm.Data)...)
	}
	for _, ing := range snap.Ingresses {
		refs = append(refs, annotations.ReferencedConfigMaps(ing.Namespace, ing.Annotations)...)
	}
	slices.Sort(refs)
	var out []*corev1.ConfigMap
	for _, ref := range slices.Compact(refs) {
		ns, name, _ := strings.Cut(ref, "/")
		if have[ref] {
			continue
		}
		if cm, err := s.listers.allConfigMaps.ConfigMaps(ns).Get(name); err == nil {
			out = append(out, cm)
		}
	}
	return out
}

// secrets merges the TLS and Opaque Secrets with the ones watched by
// name, once each.
func (s *ClusterSource) secrets() ([]*corev1.Secret, error) {
	all := labels.Everything()
	out, err := s.listers.tlsSecrets.List(all)
	if err != nil {
		return nil, fmt.Errorf("list secrets: %w", err)
	}
	opaque, err := s.listers.opaqueSecrets.List(all)
	if err != nil {
		return nil, fmt.Errorf("list secrets: %w", err)
	}
	out = append(out, opaque...)
	for _, l := range s.listers.namedSecrets {
		named, err := l.List(all)
		if err != nil {
			return nil, fmt.Errorf("list secrets: %w", err)
		}
		for _, sec := range named {
			if !containsSecret(out, sec) {
				out = append(out, sec)
			}
		}
	}
	return out, nil
}

func containsSecret(list []*corev1.Secret, sec *corev1.Secret) bool {
	for _, s := range list {
		if s.Namespace == sec.Namespace && s.Name == sec.Name {
			return true
		}
	}
	return false
}

func splitNamespacedName(flag, s string) (string, string, error) {
	ns, name, ok := strings.Cut(s, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("%s %q: want namespace/name", flag, s)
	}
	return ns, name, nil
}

func namespaceOrAll(ns string) string {
	if ns == "" {
		return "(all)"
	}
	return ns
}
