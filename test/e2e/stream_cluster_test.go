package e2e

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// TestClusterStreamService: the controller in cluster mode (envtest, real
// nginx) serves a TCP service of --tcp-services-configmap, watched by name;
// an EndpointSlice change reaches it without a reload; a bad entry of the
// ConfigMap is a Warning Event on the ConfigMap.
func TestClusterStreamService(t *testing.T) {
	nginxtest.Require(t)
	cp := startControlPlane(t)
	ip := endpointIP(t)
	alpha, beta := tcpEchoAt(t, ip, "alpha"), tcpEchoAt(t, ip, "beta")
	cs := must(kubernetes.NewForConfig(cp.cfg))(t)
	ctx := context.Background()
	for _, ns := range []string{"db", "ingress-nginx"} {
		must(cs.CoreV1().Namespaces().Create(ctx, kNamespace(ns), metav1.CreateOptions{}))(t)
	}
	slice := createService(t, cs, "db", "pg", ip, alpha)
	port := freePort(t)
	cm := must(cs.CoreV1().ConfigMaps("ingress-nginx").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "tcp-services"},
		Data:       map[string]string{strconv.Itoa(port): "db/pg:80", "1": "db/pg"},
	}, metav1.CreateOptions{}))(t)

	cc := startStreamClusterController(t, cs, "ingress-nginx/tcp-services")
	waitFor(t, 20*time.Second, "the TCP service to answer from alpha", func() bool { return tcpAsk(port, "x") == "alpha:x" })

	pids := cc.workerPids(t)
	before := cc.settle(t)
	setSlicePort(slice, beta)
	must(cs.DiscoveryV1().EndpointSlices("db").Update(ctx, slice, metav1.UpdateOptions{}))(t)
	waitFor(t, 20*time.Second, "the TCP service to answer from beta", func() bool { return tcpAsk(port, "x") == "beta:x" })
	after := cc.settle(t)
	if got := cc.workerPids(t); !slices.Equal(got, pids) || after.Reloads != before.Reloads {
		t.Errorf("an endpoint change reloaded nginx: workers %v → %v, stats %+v → %+v", pids, got, before, after)
	}

	selector := fields.Set{"involvedObject.kind": "ConfigMap", "involvedObject.name": "tcp-services", "involvedObject.uid": string(cm.UID)}.AsSelector().String()
	waitFor(t, 20*time.Second, "a Warning Event on the ConfigMap for its bad entry", func() bool {
		list, err := cs.CoreV1().Events("ingress-nginx").List(ctx, metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range list.Items {
			if e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, "data[1]") {
				return true
			}
		}
		return false
	})
}

// startStreamClusterController is startClusterController (all namespaces)
// with a TCP services ConfigMap watched by name and the stream payload
// written through the nginx instance.
func startStreamClusterController(t testing.TB, cs kubernetes.Interface, tcpServices string) *clusterController {
	t.Helper()
	build := render.DefaultOptions()
	build.TCPServicesConfigMap = tcpServices
	return startClusterControllerWith(t, cs, controller.ClusterSourceConfig{Client: cs, StreamConfigMaps: []string{tcpServices}}, controllerOptions{build: &build})
}
