package controller

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2/ktesting"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// TestReloadAndSyncEventsOnAPIServer runs the loop on a real API server
// (nginx and Lua faked) with the RELOAD and Sync observers, and reads the
// Events back by involvedObject: a Normal RELOAD on the controller pod
// after the first start, a Sync on the Ingress of our class (none on the
// other class's), a Warning RELOAD carrying nginx -t's message when a
// change is rejected, and the Sync of that change aggregated by client-go
// into the same Event (count 2).
func TestReloadAndSyncEventsOnAPIServer(t *testing.T) {
	cfg := envtesting.Start(t)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	for _, ns := range []string{"ingress-nginx", "team-a"} {
		mustCreate(t, func() error {
			_, err := cs.CoreV1().Namespaces().Create(bg, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
			return err
		})
	}
	pod, err := cs.CoreV1().Pods("ingress-nginx").Create(bg, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ingress-nginx", Name: "controller-0"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "controller", Image: "kubectl-ingress"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, func() error {
		_, err := cs.NetworkingV1().IngressClasses().Create(bg, &networkingv1.IngressClass{
			ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"},
		}, metav1.CreateOptions{})
		return err
	})
	ours, err := cs.NetworkingV1().Ingresses("team-a").Create(bg, eventsIngress("shop", "nginx", "/"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := cs.NetworkingV1().Ingresses("team-a").Create(bg, eventsIngress("elsewhere", "other", "/"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	src, err := NewClusterSource(ClusterSourceConfig{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	events, err := NewEvents(ctx, EventsConfig{Client: cs, Objects: src, Host: "controller-0"})
	if err != nil {
		t.Fatal(err)
	}
	podRef := PodReference(ctx, cs, "ingress-nginx", "controller-0")
	if podRef == nil || podRef.UID != pod.UID {
		t.Fatalf("pod reference %+v, want the UID %s", podRef, pod.UID)
	}
	if PodReference(ctx, cs, "", "") != nil {
		t.Error("a pod reference without POD_NAME/POD_NAMESPACE")
	}
	var reject atomic.Bool
	fn := &fakeNginx{reloadErr: func([]byte) error {
		if reject.Load() {
			return &nginx.TestError{Output: `nginx: [emerg] unknown directive "bogus" in nginx.conf:12` + "\nnginx: configuration file nginx.conf test failed", Err: errors.New("exit status 1")}
		}
		return nil
	}}
	c, err := New(Config{
		Source: src, Problems: events, Nginx: fn, Lua: &fakeLua{},
		Build: render.DefaultOptions(), Conf: nginxconf.DefaultConfOptions(), RetryBase: time.Hour,
		Observers: []SyncObserver{NewReloadEvents(events.Recorder(), podRef), NewSyncEvents(events.Recorder(), render.DefaultOptions())},
	})
	if err != nil {
		t.Fatal(err)
	}
	runErr := make(chan error, 1)
	go func() { runErr <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-runErr; err != nil {
			t.Errorf("Run: %v", err)
		}
	})

	reload := waitEvent(t, cs, "ingress-nginx", pod.UID, func(e corev1.Event) bool { return e.Type == corev1.EventTypeNormal })
	if reload.Reason != ReasonReload || reload.Message != MessageReloaded || reload.InvolvedObject.Kind != "Pod" || reload.Source.Host != "controller-0" {
		t.Errorf("RELOAD event %+v", reload)
	}
	sync := waitEvent(t, cs, "team-a", ours.UID, func(e corev1.Event) bool { return e.Reason == ReasonSync })
	if sync.Type != corev1.EventTypeNormal || sync.Message != MessageScheduledSync || sync.Count != 1 || sync.InvolvedObject.Kind != "Ingress" {
		t.Errorf("Sync event %+v", sync)
	}

	// A change that nginx -t rejects.
	reject.Store(true)
	ours.Spec.Rules[0].HTTP.Paths = append(ours.Spec.Rules[0].HTTP.Paths, eventsIngress("", "", "/v2").Spec.Rules[0].HTTP.Paths...)
	if _, err := cs.NetworkingV1().Ingresses("team-a").Update(bg, ours, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	failed := waitEvent(t, cs, "ingress-nginx", pod.UID, func(e corev1.Event) bool { return e.Type == corev1.EventTypeWarning })
	if failed.Reason != ReasonReload || !strings.HasPrefix(failed.Message, "Error reloading NGINX: nginx -t: exit status 1: ") ||
		!strings.Contains(failed.Message, `unknown directive "bogus"`) {
		t.Errorf("RELOAD warning %+v", failed)
	}
	waitEvent(t, cs, "team-a", ours.UID, func(e corev1.Event) bool { return e.Reason == ReasonSync && e.Count == 2 })
	if list := listEvents(t, cs, "team-a", theirs.UID); len(list) != 0 {
		t.Errorf("events on the other class's Ingress: %+v", list)
	}
}

func eventsIngress(name, class, path string) *networkingv1.Ingress {
	pt := networkingv1.PathTypePrefix
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name},
		Spec: networkingv1.IngressSpec{
			IngressClassName: &class,
			Rules: []networkingv1.IngressRule{{
				Host: "shop.example.com",
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
					Paths: []networkingv1.HTTPIngressPath{{
						Path: path, PathType: &pt,
						Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
							Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80},
						}},
					}},
				}},
			}},
		},
	}
}

func mustCreate(t *testing.T, create func() error) {
	t.Helper()
	if err := create(); err != nil {
		t.Fatal(err)
	}
}

// listEvents lists the Events whose involvedObject has uid.
func listEvents(t *testing.T, cs kubernetes.Interface, ns string, uid types.UID) []corev1.Event {
	t.Helper()
	list, err := cs.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("involvedObject.uid", string(uid)).String(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// waitEvent waits (20 s at most) for an Event on the object with uid that
// match accepts.
func waitEvent(t *testing.T, cs kubernetes.Interface, ns string, uid types.UID, match func(corev1.Event) bool) corev1.Event {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var seen []corev1.Event
	for time.Now().Before(deadline) {
		seen = listEvents(t, cs, ns, uid)
		for _, e := range seen {
			if match(e) {
				return e
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no matching event on %s %s; events: %+v", ns, uid, seen)
	return corev1.Event{}
}
