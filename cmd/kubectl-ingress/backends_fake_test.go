package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
)

// fakeDialer answers for each pod with the status server of its URL, or
// fails as told; it records the pods it opened and closed.
type fakeDialer struct {
	urls     map[string]string // pod name -> base URL
	openErr  map[string]error
	closeErr map[string]error

	mu     sync.Mutex
	opened []string
	closed []string
}

func (d *fakeDialer) Open(_ context.Context, pod *corev1.Pod) (string, func() error, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	name := "<url>"
	if pod != nil {
		name = pod.Name
	}
	d.opened = append(d.opened, name)
	if err := d.openErr[name]; err != nil {
		return "", nil, err
	}
	u, ok := d.urls[name]
	if !ok {
		return "", nil, fmt.Errorf("fakeDialer: no URL for pod %s", name)
	}
	return u, func() error {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.closed = append(d.closed, name)
		return d.closeErr[name]
	}, nil
}

// statusServer serves body at /configuration/backends and returns its URL.
func statusServer(t *testing.T, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/configuration/backends" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// fakeCluster returns clusterClients that give cs and d whatever the
// kubeconfig flags say.
func fakeCluster(cs kubernetes.Interface, d statusDialer) clusterClients {
	return clusterClients{
		clientset: func(genericclioptions.RESTClientGetter) (kubernetes.Interface, error) { return cs, nil },
		dialer:    func(genericclioptions.RESTClientGetter, int) (statusDialer, error) { return d, nil },
	}
}

// runBackends runs "kubectl ingress backends args…" against the fake
// cluster and returns the exit status and both streams.
func runBackends(t *testing.T, clients clusterClients, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	cmd := newCmdBackends(NewBackendsOptions(streams, clients))
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	return run(cmd), out.String(), errOut.String()
}

// podSpec describes a test pod.
type podSpec struct {
	name       string
	labels     map[string]string
	phase      corev1.PodPhase
	ready      bool
	containers []string
	// waiting is the waiting reason of every container ("" for running).
	waiting     string
	terminating bool
}

func (p podSpec) pod(namespace string) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: namespace, Labels: p.labels},
		Status:     corev1.PodStatus{Phase: p.phase},
	}
	if p.terminating {
		now := metav1.NewTime(time.Unix(1700000000, 0))
		pod.DeletionTimestamp = &now
	}
	containers := p.containers
	if len(containers) == 0 {
		containers = []string{"controller"}
	}
	for _, c := range containers {
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: c, Image: "registry.example/controller:v1"})
		st := corev1.ContainerStatus{Name: c, Ready: p.ready}
		switch {
		case p.waiting != "":
			st.State.Waiting = &corev1.ContainerStateWaiting{Reason: p.waiting}
		case p.phase == corev1.PodRunning:
			st.State.Running = &corev1.ContainerStateRunning{}
		}
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, st)
	}
	status := corev1.ConditionFalse
	if p.ready {
		status = corev1.ConditionTrue
	}
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
	return pod
}

// controllerDeployment is a Deployment selecting app=name.
func controllerDeployment(namespace, name string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "controller", Image: "registry.example/controller:v1"}}},
			},
		},
	}
}

// fakeClientset holds objects.
func fakeClientset(objects ...runtime.Object) *fake.Clientset {
	return fake.NewClientset(objects...)
}
