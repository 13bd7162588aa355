package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
)

// controlPlane is a kube-apiserver + etcd from bin/envtest whose API
// server can be stopped and started again on the same port, with the same
// serving certificate and the same etcd, so that clients made before the
// restart still work after it.
type controlPlane struct {
	env *envtest.Environment
	cfg *rest.Config
}

// startControlPlane starts etcd and kube-apiserver until the test ends.
// Missing binaries fail the test (never a skip): `make envtest` builds them.
func startControlPlane(t testing.TB) *controlPlane {
	t.Helper()
	dir, err := envtesting.AssetsDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Fatalf("%s missing from %s: run `make envtest` (it builds kube-apiserver and etcd from the Go module proxy)", name, dir)
		}
	}
	// envtest logs through controller-runtime's logger, and prints a stack
	// trace when none was set; its progress lines only at -v=5.
	ctrllog.SetLogger(klog.Background().V(5))
	useExisting := false
	env := &envtest.Environment{
		BinaryAssetsDirectory:    dir,
		UseExistingCluster:       &useExisting,
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	api := env.ControlPlane.GetAPIServer()
	api.Path = filepath.Join(dir, "kube-apiserver")
	api.Configure().Set("service-cluster-ip-range", envtesting.ServiceClusterIPRange)
	// On SIGTERM, answer new requests 429 until the ones in flight are
	// done, then close the watches within 2 s; by default the HTTP server
	// waits up to --request-timeout (60 s) for the controller's watches.
	api.Configure().Set("shutdown-send-retry-after", "true")
	// A directory of our own: envtest keeps it (and the serving
	// certificate in it) across Stop and Start; its own temporary one
	// would be replaced by a new one with a new CA.
	api.CertDir = t.TempDir()
	env.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(dir, "etcd")}
	cfg, err := env.Start()
	if err != nil {
		_ = env.Stop()
		t.Fatalf("starting the control plane from %s: %v (KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true shows its logs)", dir, err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping the control plane: %v", err)
		}
	})
	return &controlPlane{env: env, cfg: cfg}
}

// restartAPIServer stops kube-apiserver, calls meanwhile while it is down,
// and starts it again on the same port.
func (cp *controlPlane) restartAPIServer(t testing.TB, meanwhile func()) {
	t.Helper()
	api := cp.env.ControlPlane.GetAPIServer()
	if err := api.Stop(); err != nil {
		t.Fatalf("stopping kube-apiserver: %v", err)
	}
	meanwhile()
	if err := api.Start(); err != nil {
		t.Fatalf("starting kube-apiserver again: %v", err)
	}
}

// secondAPIServer starts another kube-apiserver on the same etcd (and a
// port of its own) and returns a client for it and its stop.
func (cp *controlPlane) secondAPIServer(t testing.TB) (kubernetes.Interface, func()) {
	t.Helper()
	first := cp.env.ControlPlane.GetAPIServer()
	api := &envtest.APIServer{
		Path:         first.Path,
		EtcdURL:      cp.env.ControlPlane.Etcd.URL,
		StartTimeout: 2 * time.Minute,
		StopTimeout:  time.Minute,
	}
	api.Configure().Set("service-cluster-ip-range", envtesting.ServiceClusterIPRange)
	if err := api.Start(); err != nil {
		t.Fatalf("starting a second kube-apiserver: %v", err)
	}
	plane := &envtest.ControlPlane{APIServer: api}
	user, err := plane.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(user.Config())
	if err != nil {
		t.Fatal(err)
	}
	return cs, func() {
		if err := api.Stop(); err != nil {
			t.Errorf("stopping the second kube-apiserver: %v", err)
		}
	}
}

// clusterController is `kubectl ingress controller` in cluster mode on a
// control plane, with a real nginx on loopback ports.
type clusterController struct {
	runningController
	cs kubernetes.Interface
}

// startClusterController runs the controller on cfg until the test ends,
// watching namespace ("" for all), with options, and waits until nginx
// serves its first config. A rejected config is tried again only after a
// change (the retry backoff is an hour), as in the files tests.
func startClusterController(t testing.TB, cfg *rest.Config, namespace string, o controllerOptions) *clusterController {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return startClusterControllerWith(t, cs, controller.ClusterSourceConfig{
		Config:    controller.TuneRESTConfig(cfg, "kubectl-ingress-e2e"),
		Namespace: namespace,
	}, o)
}

// startClusterControllerWith is startClusterController with the source
// given (the controller ConfigMap and default certificate are watched as
// the build options name them); cs is the tests' client.
func startClusterControllerWith(t testing.TB, cs kubernetes.Interface, scfg controller.ClusterSourceConfig, o controllerOptions) *clusterController {
	t.Helper()
	nginxtest.Require(t)
	cc := &clusterController{cs: cs}
	co := o.conf(t, cc.prepare(t))
	build := o.buildOptions()
	scfg.ConfigMap, scfg.DefaultSSLCertificate = build.ConfigMap, build.DefaultSSLCertificate
	ctx, cancel := cc.logContext()
	src, err := controller.NewClusterSource(scfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	events, err := controller.NewEvents(ctx, controller.EventsConfig{Client: src.Client(), Objects: src, Host: "e2e"})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cc.run(t, ctx, cancel, controller.Config{Source: src, Problems: o.reporter(events), Build: build, Conf: co}, 60*time.Second)
	return cc
}

// endpointIP is the address of the backends of the cluster tests: the API
// server refuses loopback addresses in EndpointSlices, so the backends
// listen on the machine's first non-loopback IPv4 address (nginx reaches
// it locally all the same). One address only: endpoints differ by port,
// so a Service with several endpoints has several EndpointSlices.
func endpointIP(t testing.TB) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	t.Fatal("no non-loopback IPv4 address on this machine: EndpointSlices refuse loopback addresses, the cluster tests need one")
	return ""
}

// ipBackend starts an HTTP server on ip that answers "name path", and
// returns its port.
func ipBackend(t testing.TB, ip, name string) int {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s", name, r.URL.Path)
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return l.Addr().(*net.TCPAddr).Port
}

// The objects of the cluster tests. Services map port 80 to the named
// port "http" of their EndpointSlice.

func kNamespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

func kIngressClass() *networkingv1.IngressClass {
	return &networkingv1.IngressClass{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx"},
		Spec:       networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"},
	}
}

func kService(ns, name string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{
			Name: "http", Port: 80, TargetPort: intstr.FromString("http"),
		}}},
	}
}

// kSlice is an EndpointSlice of service with one ready endpoint per
// address, all on port.
func kSlice(ns, name, service string, port int, addrs ...string) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name,
			Labels: map[string]string{discoveryv1.LabelServiceName: service},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: new("http"), Port: new(int32(port))}},
	}
	setEndpoints(s, addrs...)
	return s
}

func setEndpoints(s *discoveryv1.EndpointSlice, addrs ...string) {
	s.Endpoints = nil
	for _, a := range addrs {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{a},
			Conditions: discoveryv1.EndpointConditions{Ready: new(true)},
		})
	}
}

// kIngress is an Ingress of class nginx for host with one Prefix path per
// path → service pair, and nginx.ingress.kubernetes.io/ annotations.
func kIngress(ns, name, host string, annotations map[string]string, paths ...string) *networkingv1.Ingress {
	ing := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       networkingv1.IngressSpec{IngressClassName: new("nginx")},
	}
	setIngress(ing, host, annotations, paths...)
	return ing
}

// setIngress replaces the rules and annotations of ing.
func setIngress(ing *networkingv1.Ingress, host string, annotations map[string]string, paths ...string) {
	ing.Annotations = nil
	for k, v := range annotations {
		if ing.Annotations == nil {
			ing.Annotations = map[string]string{}
		}
		ing.Annotations["nginx.ingress.kubernetes.io/"+k] = v
	}
	http := &networkingv1.HTTPIngressRuleValue{}
	for i := 0; i+1 < len(paths); i += 2 {
		http.Paths = append(http.Paths, networkingv1.HTTPIngressPath{
			Path: paths[i], PathType: new(networkingv1.PathTypePrefix),
			Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
				Name: paths[i+1], Port: networkingv1.ServiceBackendPort{Number: 80},
			}},
		})
	}
	ing.Spec.Rules = []networkingv1.IngressRule{{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: http}}}
}

// must(call)(t) fails the test when call returns an error, and returns
// call's value.
func must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// noErr fails the test on err.
func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// createService makes a Service and its EndpointSlice "<name>-1" with
// one endpoint, ip:port, and returns the slice.
func createService(t testing.TB, cs kubernetes.Interface, ns, name, ip string, port int) *discoveryv1.EndpointSlice {
	t.Helper()
	ctx := context.Background()
	must(cs.CoreV1().Services(ns).Create(ctx, kService(ns, name), metav1.CreateOptions{}))(t)
	return must(cs.DiscoveryV1().EndpointSlices(ns).Create(ctx, kSlice(ns, name+"-1", name, port, ip), metav1.CreateOptions{}))(t)
}

// setSlicePort moves every endpoint of s to port.
func setSlicePort(s *discoveryv1.EndpointSlice, port int) {
	s.Ports[0].Port = new(int32(port))
}
