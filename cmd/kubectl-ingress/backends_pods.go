package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Where the controller is looked for when no flag says: ours as deploy/
// installs it, then ingress-nginx's (its kubectl plugin's and Helm chart's
// defaults), so that the command works against either without flags.
const (
	defaultControllerNamespace  = "kubectl-ingress"
	defaultControllerDeployment = "kubectl-ingress-controller"
	ingressNginxNamespace       = "ingress-nginx"
	ingressNginxDeployment      = "ingress-nginx-controller"
	defaultControllerContainer  = "controller"
)

// errNotThere is what findPods's error is (errors.Is) when what it looks
// for is not in the namespace: no such pod or Deployment, no pod matches
// the selector.
var errNotThere = errors.New("not found")

// notThere is such an error, with its own message.
type notThere struct{ msg string }

func (e notThere) Error() string      { return e.msg }
func (notThere) Is(target error) bool { return target == errNotThere }

func notTheref(format string, args ...any) error { return notThere{msg: fmt.Sprintf(format, args...)} }

// findPodsOf tries the queries in order and returns the pods of the first
// that finds any, and that query; an error other than errNotThere ends
// the search. When none finds pods, the error names every place looked at.
func findPodsOf(ctx context.Context, cs kubernetes.Interface, queries []podQuery) ([]corev1.Pod, podQuery, error) {
	var missing []string
	for _, q := range queries {
		pods, err := findPods(ctx, cs, q)
		if !errors.Is(err, errNotThere) {
			return pods, q, err
		}
		missing = append(missing, err.Error())
	}
	return nil, podQuery{}, fmt.Errorf("no controller found: %s; name the controller with --deployment, --pod or -l, and its namespace with -n",
		strings.Join(missing, "; "))
}

// podQuery says which controller pods to ask: one named pod, the pods of a
// label selector, or the pods of a Deployment, in one namespace.
type podQuery struct {
	Namespace  string
	Pod        string
	Selector   string
	Deployment string
	// Container is the controller container; empty picks it (see
	// controllerContainer).
	Container string
}

// describe names what the query looks for, for error messages.
func (q podQuery) describe() string {
	switch {
	case q.Pod != "":
		return fmt.Sprintf("pod %q in namespace %q", q.Pod, q.Namespace)
	case q.Selector != "":
		return fmt.Sprintf("pods matching %q in namespace %q", q.Selector, q.Namespace)
	}
	return fmt.Sprintf("pods of deployment %q in namespace %q", q.Deployment, q.Namespace)
}

// findPods returns the pods q names, sorted by name. It fails when there
// are none: a missing pod or Deployment, or a selector that matches nothing.
func findPods(ctx context.Context, cs kubernetes.Interface, q podQuery) ([]corev1.Pod, error) {
	pods := cs.CoreV1().Pods(q.Namespace)
	if q.Pod != "" {
		p, err := pods.Get(ctx, q.Pod, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, notTheref("pod %q not found in namespace %q", q.Pod, q.Namespace)
		}
		if err != nil {
			return nil, fmt.Errorf("getting pod %s/%s: %w", q.Namespace, q.Pod, err)
		}
		return []corev1.Pod{*p}, nil
	}
	selector, what := q.Selector, ""
	if selector == "" {
		d, err := cs.AppsV1().Deployments(q.Namespace).Get(ctx, q.Deployment, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, notTheref("deployment %q not found in namespace %q", q.Deployment, q.Namespace)
		}
		if err != nil {
			return nil, fmt.Errorf("getting deployment %s/%s: %w", q.Namespace, q.Deployment, err)
		}
		if d.Spec.Selector == nil {
			return nil, fmt.Errorf("deployment %s/%s has no selector", q.Namespace, q.Deployment)
		}
		s, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil {
			return nil, fmt.Errorf("deployment %s/%s: selector: %w", q.Namespace, q.Deployment, err)
		}
		selector, what = s.String(), fmt.Sprintf("deployment %q (selector %s)", q.Deployment, s)
	} else {
		what = fmt.Sprintf("selector %q", selector)
	}
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("listing the pods of %s in namespace %q: %w", what, q.Namespace, err)
	}
	if len(list.Items) == 0 && q.Selector != "" {
		return nil, notTheref("no pods of %s in namespace %q", what, q.Namespace)
	}
	if len(list.Items) == 0 {
		return nil, fmt.Errorf("no pods of %s in namespace %q", what, q.Namespace)
	}
	out := list.Items
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// choosePod picks the pod to ask among pods: the first running and ready
// one, else the first running one. When none runs, the error says why for
// each pod.
func choosePod(pods []corev1.Pod, container string) (*corev1.Pod, error) {
	var running *corev1.Pod
	var why []string
	for i := range pods {
		p := &pods[i]
		if err := podUsable(p, container); err != nil {
			why = append(why, err.Error())
			continue
		}
		if podReady(p) {
			return p, nil
		}
		if running == nil {
			running = p
		}
	}
	if running != nil {
		return running, nil
	}
	if len(pods) == 1 {
		return nil, fmt.Errorf("%s", why[0])
	}
	return nil, fmt.Errorf("none of the %d pods runs a controller: %s", len(pods), strings.Join(why, "; "))
}

// podUsable returns nil when p runs and its controller container runs, so
// that its status server can answer; else an error naming the pod and why.
func podUsable(p *corev1.Pod, container string) error {
	name := p.Namespace + "/" + p.Name
	if p.DeletionTimestamp != nil {
		return fmt.Errorf("pod %s is terminating", name)
	}
	if p.Status.Phase != corev1.PodRunning {
		phase := string(p.Status.Phase)
		if phase == "" {
			phase = "not scheduled"
		}
		if reason := waitingReason(p); reason != "" {
			phase += ", " + reason
		} else if p.Status.Reason != "" {
			phase += ", " + p.Status.Reason
		}
		return fmt.Errorf("pod %s is not running (%s)", name, phase)
	}
	c, err := controllerContainer(p, container)
	if err != nil {
		return err
	}
	if c == "" {
		return nil
	}
	for _, st := range p.Status.ContainerStatuses {
		if st.Name != c {
			continue
		}
		switch {
		case st.State.Running != nil:
			return nil
		case st.State.Waiting != nil:
			return fmt.Errorf("container %q of pod %s is not running (waiting: %s)", c, name, st.State.Waiting.Reason)
		case st.State.Terminated != nil:
			return fmt.Errorf("container %q of pod %s is not running (terminated: %s)", c, name, st.State.Terminated.Reason)
		}
	}
	return fmt.Errorf("container %q of pod %s is not running (no status yet)", c, name)
}

// controllerContainer returns the name of the container whose state says
// whether the controller runs: container when set (an error when the pod
// has none of that name), else the only container, else the one named
// "controller" as ingress-nginx names it, else "" (none checked).
func controllerContainer(p *corev1.Pod, container string) (string, error) {
	var names []string
	for _, c := range p.Spec.Containers {
		names = append(names, c.Name)
	}
	switch {
	case container != "":
		for _, n := range names {
			if n == container {
				return n, nil
			}
		}
		return "", fmt.Errorf("pod %s/%s has no container %q (it has %s): name the controller container with --container",
			p.Namespace, p.Name, container, strings.Join(names, ", "))
	case len(names) == 1:
		return names[0], nil
	}
	for _, n := range names {
		if n == defaultControllerContainer {
			return n, nil
		}
	}
	return "", nil
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// waitingReason returns the reason of the first waiting container
// (ContainerCreating, ImagePullBackOff …), or "".
func waitingReason(p *corev1.Pod) string {
	for _, st := range p.Status.ContainerStatuses {
		if st.State.Waiting != nil && st.State.Waiting.Reason != "" {
			return st.State.Waiting.Reason
		}
	}
	return ""
}
