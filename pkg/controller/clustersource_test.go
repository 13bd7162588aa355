package controller_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2/ktesting"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// csWatch is a running ClusterSource and the count of its changed calls.
type csWatch struct {
	src     *controller.ClusterSource
	changes atomic.Int64
	signal  chan struct{} // one token after any change
}

// startClusterSource runs a ClusterSource until the test ends and waits
// for its caches.
func startClusterSource(t *testing.T, cfg controller.ClusterSourceConfig) *csWatch {
	t.Helper()
	src, err := controller.NewClusterSource(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	w := &csWatch{src: src, signal: make(chan struct{}, 1)}
	done := make(chan error, 1)
	go func() {
		done <- src.Run(ctx, func() {
			w.changes.Add(1)
			select {
			case w.signal <- struct{}{}:
			default:
			}
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	if !src.WaitForSync(syncCtx) {
		t.Fatal("WaitForSync: caches did not sync in 30s")
	}
	return w
}

// eventually polls cond after every change (and at least every 100ms)
// until it holds or 20s pass.
func (w *csWatch) eventually(t *testing.T, what string, cond func(render.Snapshot) bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		snap, err := w.src.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if cond(snap) {
			return
		}
		select {
		case <-w.signal:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for the snapshot to show: %s", what)
		}
	}
}

func names[T metav1.Object](objs []T) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		if o.GetNamespace() == "" {
			out = append(out, o.GetName())
		} else {
			out = append(out, o.GetNamespace()+"/"+o.GetName())
		}
	}
	slices.Sort(out)
	return out
}

func has[T metav1.Object](objs []T, key string) bool { return slices.Contains(names(objs), key) }

func find[T metav1.Object](objs []T, key string) (T, bool) {
	for _, o := range objs {
		k := o.GetName()
		if o.GetNamespace() != "" {
			k = o.GetNamespace() + "/" + k
		}
		if k == key {
			return o, true
		}
	}
	var zero T
	return zero, false
}

func mustNamespaces(t *testing.T, cs kubernetes.Interface, nss ...string) {
	t.Helper()
	for _, ns := range nss {
		if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func testService(ns, name string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{
			Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080),
		}}},
	}
}

func testSlice(ns, name, service string, port int32, addrs ...string) *discoveryv1.EndpointSlice {
	ready := true
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name,
			Labels: map[string]string{discoveryv1.LabelServiceName: service},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: new("http"), Port: new(port)}},
	}
	for _, a := range addrs {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{a},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready},
		})
	}
	return s
}

func testIngress(ns, name, host, path, service string) *networkingv1.Ingress {
	pt := networkingv1.PathTypePrefix
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: networkingv1.IngressSpec{
			IngressClassName: new("nginx"),
			Rules: []networkingv1.IngressRule{{
				Host: host,
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
					Paths: []networkingv1.HTTPIngressPath{{
						Path: path, PathType: &pt,
						Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
							Name: service, Port: networkingv1.ServiceBackendPort{Number: 80},
						}},
					}},
				}},
			}},
		},
	}
}

func testSecret(ns, name string, typ corev1.SecretType) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Type: typ, Data: map[string][]byte{"k": []byte("v")}}
	if typ == corev1.SecretTypeTLS {
		s.Data = map[string][]byte{corev1.TLSCertKey: []byte("cert"), corev1.TLSPrivateKeyKey: []byte("key")}
	}
	return s
}

// TestClusterSource runs a ClusterSource against a real API server: the
// first view after WaitForSync, then create, update and delete of every
// watched kind, and what it must not see (other namespaces, non-TLS
// Secrets, other ConfigMaps, Ingress status updates).
func TestClusterSource(t *testing.T) {
	cfg := envtesting.Start(t)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	create := metav1.CreateOptions{}
	mustNamespaces(t, cs, "watched", "other", "ingress-nginx")

	// Present before the source starts: the first view must have them.
	if _, err := cs.NetworkingV1().IngressClasses().Create(ctx, &networkingv1.IngressClass{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx"},
		Spec:       networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"},
	}, create); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Services("watched").Create(ctx, testService("watched", "early"), create); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Secrets("ingress-nginx").Create(ctx, testSecret("ingress-nginx", "default-cert", corev1.SecretTypeOpaque), create); err != nil {
		t.Fatal(err)
	}

	w := startClusterSource(t, controller.ClusterSourceConfig{
		Config:                controller.TuneRESTConfig(cfg, "clustersource-test"),
		Namespace:             "watched",
		ConfigMap:             "ingress-nginx/ingress-nginx-controller",
		DefaultSSLCertificate: "ingress-nginx/default-cert",
	})
	snap, err := w.src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if got := names(snap.IngressClasses); !slices.Equal(got, []string{"nginx"}) {
		t.Errorf("first view IngressClasses %v, want [nginx]", got)
	}
	if got := names(snap.Services); !slices.Equal(got, []string{"watched/early"}) {
		t.Errorf("first view Services %v, want [watched/early]", got)
	}
	// The --default-ssl-certificate Secret is watched by name, outside the
	// watched namespace and whatever its type (render reports a wrong type).
	if got := names(snap.Secrets); !slices.Equal(got, []string{"ingress-nginx/default-cert"}) {
		t.Errorf("first view Secrets %v, want [ingress-nginx/default-cert]", got)
	}

	t.Run("Ingress", func(t *testing.T) {
		ings := cs.NetworkingV1().Ingresses("watched")
		ing, err := ings.Create(ctx, testIngress("watched", "shop", "shop.example.com", "/", "early"), create)
		if err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "ingress watched/shop", func(s render.Snapshot) bool { return has(s.Ingresses, "watched/shop") })
		if uid, ok := w.src.LookupUID(model.ObjectRef{Kind: "Ingress", Namespace: "watched", Name: "shop"}); !ok || uid != ing.UID {
			t.Errorf("LookupUID = %q, %v; want %q", uid, ok, ing.UID)
		}

		// A status update (the controller's own) is not a change; the
		// annotation update after it is, and the informer delivers both
		// in order: exactly one changed call between the two views.
		before := w.changes.Load()
		ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.1"}}
		if ing, err = ings.UpdateStatus(ctx, ing, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		ing.Annotations = map[string]string{"nginx.ingress.kubernetes.io/proxy-body-size": "8m"}
		if _, err = ings.Update(ctx, ing, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "annotation on watched/shop", func(s render.Snapshot) bool {
			i, ok := find(s.Ingresses, "watched/shop")
			return ok && i.Annotations["nginx.ingress.kubernetes.io/proxy-body-size"] == "8m"
		})
		if got := w.changes.Load() - before; got != 1 {
			t.Errorf("status update + annotation update: %d changed calls, want 1 (status updates are not changes)", got)
		}
		// Managed fields are trimmed from the cache.
		if i, _ := find(w.snapshot(t).Ingresses, "watched/shop"); len(i.ManagedFields) != 0 {
			t.Errorf("cached Ingress keeps %d managed fields entries", len(i.ManagedFields))
		}

		if _, err := cs.NetworkingV1().Ingresses("other").Create(ctx, testIngress("other", "elsewhere", "x.example.com", "/", "x"), create); err != nil {
			t.Fatal(err)
		}
		if err := ings.Delete(ctx, "shop", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "no ingress", func(s render.Snapshot) bool { return len(s.Ingresses) == 0 })
	})

	t.Run("IngressClass", func(t *testing.T) {
		classes := cs.NetworkingV1().IngressClasses()
		ic, err := classes.Create(ctx, &networkingv1.IngressClass{
			ObjectMeta: metav1.ObjectMeta{Name: "internal"},
			Spec:       networkingv1.IngressClassSpec{Controller: "example.com/other"},
		}, create)
		if err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "class internal", func(s render.Snapshot) bool { return has(s.IngressClasses, "internal") })
		ic.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}
		if _, err := classes.Update(ctx, ic, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "class internal is default", func(s render.Snapshot) bool {
			c, ok := find(s.IngressClasses, "internal")
			return ok && c.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true"
		})
		if err := classes.Delete(ctx, "internal", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "class internal gone", func(s render.Snapshot) bool { return !has(s.IngressClasses, "internal") })
	})

	t.Run("Service", func(t *testing.T) {
		svcs := cs.CoreV1().Services("watched")
		svc, err := svcs.Create(ctx, testService("watched", "web"), create)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CoreV1().Services("other").Create(ctx, testService("other", "web"), create); err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "service watched/web", func(s render.Snapshot) bool { return has(s.Services, "watched/web") })
		svc.Spec.Ports[0].TargetPort = intstr.FromInt32(9090)
		if _, err := svcs.Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "targetPort 9090", func(s render.Snapshot) bool {
			sv, ok := find(s.Services, "watched/web")
			return ok && sv.Spec.Ports[0].TargetPort.IntVal == 9090
		})
		if err := svcs.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "service watched/web gone", func(s render.Snapshot) bool { return !has(s.Services, "watched/web") })
		if has(w.snapshot(t).Services, "other/web") {
			t.Error("a Service outside --watch-namespace is in the snapshot")
		}
	})

	t.Run("EndpointSlice", func(t *testing.T) {
		eps := cs.DiscoveryV1().EndpointSlices("watched")
		es, err := eps.Create(ctx, testSlice("watched", "web-1", "web", 8080, "10.0.0.1"), create)
		if err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "slice watched/web-1", func(s render.Snapshot) bool { return has(s.EndpointSlices, "watched/web-1") })
		es.Endpoints = append(es.Endpoints, testSlice("", "", "", 0, "10.0.0.2").Endpoints...)
		if _, err := eps.Update(ctx, es, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "two endpoints", func(s render.Snapshot) bool {
			e, ok := find(s.EndpointSlices, "watched/web-1")
			return ok && len(e.Endpoints) == 2
		})
		if err := eps.Delete(ctx, "web-1", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "slice gone", func(s render.Snapshot) bool { return len(s.EndpointSlices) == 0 })
	})

	t.Run("Secret", func(t *testing.T) {
		secrets := cs.CoreV1().Secrets("watched")
		if _, err := secrets.Create(ctx, testSecret("watched", "opaque", corev1.SecretTypeOpaque), create); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CoreV1().Secrets("other").Create(ctx, testSecret("other", "tls", corev1.SecretTypeTLS), create); err != nil {
			t.Fatal(err)
		}
		sec, err := secrets.Create(ctx, testSecret("watched", "tls", corev1.SecretTypeTLS), create)
		if err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "secret watched/tls", func(s render.Snapshot) bool { return has(s.Secrets, "watched/tls") })
		sec.Data[corev1.TLSCertKey] = []byte("rotated")
		if _, err := secrets.Update(ctx, sec, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "rotated certificate", func(s render.Snapshot) bool {
			x, ok := find(s.Secrets, "watched/tls")
			return ok && string(x.Data[corev1.TLSCertKey]) == "rotated"
		})
		if err := secrets.Delete(ctx, "tls", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		// The Opaque Secret stays: auth-secret, auth-tls-secret and
		// proxy-ssl-secret name such Secrets; the TLS one of the other
		// namespace is not watched.
		w.eventually(t, "the default certificate and the Opaque Secret", func(s render.Snapshot) bool {
			return slices.Equal(names(s.Secrets), []string{"ingress-nginx/default-cert", "watched/opaque"})
		})
		// The default certificate, watched by name: its changes count too.
		def, err := cs.CoreV1().Secrets("ingress-nginx").Get(ctx, "default-cert", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		def.Data["k"] = []byte("changed")
		if _, err := cs.CoreV1().Secrets("ingress-nginx").Update(ctx, def, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "default certificate updated", func(s render.Snapshot) bool {
			x, ok := find(s.Secrets, "ingress-nginx/default-cert")
			return ok && string(x.Data["k"]) == "changed"
		})
	})

	t.Run("ConfigMap", func(t *testing.T) {
		cms := cs.CoreV1().ConfigMaps("ingress-nginx")
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "unrelated"}}, create); err != nil {
			t.Fatal(err)
		}
		cm, err := cms.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "ingress-nginx-controller"},
			Data:       map[string]string{"proxy-body-size": "2m"},
		}, create)
		if err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "controller configmap", func(s render.Snapshot) bool { return has(s.ConfigMaps, "ingress-nginx/ingress-nginx-controller") })
		cm.Data["proxy-body-size"] = "4m"
		if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "proxy-body-size 4m", func(s render.Snapshot) bool {
			c, ok := find(s.ConfigMaps, "ingress-nginx/ingress-nginx-controller")
			return ok && c.Data["proxy-body-size"] == "4m"
		})
		if err := cms.Delete(ctx, "ingress-nginx-controller", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		w.eventually(t, "no configmap", func(s render.Snapshot) bool { return len(s.ConfigMaps) == 0 })
	})

	t.Run("AllNamespaces", func(t *testing.T) {
		all := startClusterSource(t, controller.ClusterSourceConfig{Config: cfg})
		snap := all.snapshot(t)
		if !has(snap.Ingresses, "other/elsewhere") || !has(snap.Services, "other/web") || !has(snap.Secrets, "other/tls") {
			t.Errorf("without --watch-namespace: ingresses %v, services %v, secrets %v; want other/* too",
				names(snap.Ingresses), names(snap.Services), names(snap.Secrets))
		}
		if !has(snap.Secrets, "watched/opaque") {
			t.Error("the Secret of type Opaque (auth-secret …) is not in the snapshot")
		}
		if len(snap.ConfigMaps) != 0 {
			t.Errorf("ConfigMaps %v without --configmap", names(snap.ConfigMaps))
		}
	})
}

func (w *csWatch) snapshot(t *testing.T) render.Snapshot {
	t.Helper()
	s, err := w.src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestClusterSourceWaitForSyncBeforeRun: WaitForSync returns false when
// its context ends before Run started the informers.
func TestClusterSourceWaitForSyncBeforeRun(t *testing.T) {
	src, err := controller.NewClusterSource(controller.ClusterSourceConfig{Config: &restConfigForNothing})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if src.WaitForSync(ctx) {
		t.Error("WaitForSync = true before Run")
	}
}

func TestNewClusterSourceErrors(t *testing.T) {
	if _, err := controller.NewClusterSource(controller.ClusterSourceConfig{}); err == nil {
		t.Error("no client and no config: want an error")
	}
	for _, bad := range []controller.ClusterSourceConfig{
		{Config: &restConfigForNothing, ConfigMap: "no-namespace"},
		{Config: &restConfigForNothing, DefaultSSLCertificate: "ns/"},
		{Config: &restConfigForNothing, DefaultSSLCertificate: "a/b/c"},
	} {
		if _, err := controller.NewClusterSource(bad); err == nil {
			t.Errorf("%+v: want an error", bad)
		}
	}
}

// restConfigForNothing points at a port nobody listens on: for tests that
// never reach the API server.
var restConfigForNothing = rest.Config{Host: "http://127.0.0.1:1"}
