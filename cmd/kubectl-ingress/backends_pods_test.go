package main

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes/fake"
)

const testNS = "ingress-nginx"

var controllerLabels = map[string]string{"app": ingressNginxDeployment}

func TestBackendsFindPods(t *testing.T) {
	cs := fakeClientset(
		controllerDeployment(testNS, ingressNginxDeployment),
		controllerDeployment(testNS, "other"),
		podSpec{name: "ctrl-b", labels: controllerLabels, phase: corev1.PodRunning, ready: true}.pod(testNS),
		podSpec{name: "ctrl-a", labels: controllerLabels, phase: corev1.PodRunning, ready: true}.pod(testNS),
		podSpec{name: "other-1", labels: map[string]string{"app": "other"}, phase: corev1.PodRunning}.pod(testNS),
		podSpec{name: "elsewhere", labels: controllerLabels, phase: corev1.PodRunning}.pod("kube-system"),
	)
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		q       podQuery
		want    string // pod names, comma-separated
		wantErr string
	}{
		{"deployment", podQuery{Namespace: testNS, Deployment: ingressNginxDeployment}, "ctrl-a,ctrl-b", ""},
		{"other deployment", podQuery{Namespace: testNS, Deployment: "other"}, "other-1", ""},
		{"selector", podQuery{Namespace: testNS, Selector: "app in (other, ingress-nginx-controller)"}, "ctrl-a,ctrl-b,other-1", ""},
		{"pod", podQuery{Namespace: testNS, Pod: "ctrl-b", Deployment: ingressNginxDeployment}, "ctrl-b", ""},
		{"namespace", podQuery{Namespace: "kube-system", Selector: "app=ingress-nginx-controller"}, "elsewhere", ""},
		{"no such pod", podQuery{Namespace: testNS, Pod: "ctrl-z"}, "",
			`pod "ctrl-z" not found in namespace "ingress-nginx"`},
		{"no such deployment", podQuery{Namespace: "kube-system", Deployment: ingressNginxDeployment}, "",
			`deployment "ingress-nginx-controller" not found in namespace "kube-system"`},
		{"selector matches nothing", podQuery{Namespace: testNS, Selector: "app=nginx"}, "",
			`no pods of selector "app=nginx" in namespace "ingress-nginx"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods, err := findPods(ctx, cs, tc.q)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range pods {
				names = append(names, p.Name)
			}
			if got := strings.Join(names, ","); got != tc.want {
				t.Errorf("pods = %s, want %s", got, tc.want)
			}
		})
	}

	// A Deployment whose pods are all gone.
	empty := fakeClientset(controllerDeployment(testNS, ingressNginxDeployment))
	_, err := findPods(ctx, empty, podQuery{Namespace: testNS, Deployment: ingressNginxDeployment})
	if want := `no pods of deployment "ingress-nginx-controller" (selector app=ingress-nginx-controller) in namespace "ingress-nginx"`; err == nil || err.Error() != want {
		t.Errorf("deployment without pods: %v, want %q", err, want)
	}
}

func TestBackendsChoosePod(t *testing.T) {
	running := func(name string, ready bool) podSpec {
		return podSpec{name: name, phase: corev1.PodRunning, ready: ready}
	}
	for _, tc := range []struct {
		name      string
		pods      []podSpec
		container string
		want      string
		wantErr   string
	}{
		{"first ready", []podSpec{running("a", false), running("b", true), running("c", true)}, "", "b", ""},
		{"running when none is ready", []podSpec{{name: "a", phase: corev1.PodPending, waiting: "ContainerCreating"}, running("b", false)}, "", "b", ""},
		{"pending", []podSpec{{name: "a", phase: corev1.PodPending, waiting: "ContainerCreating"}}, "", "",
			"pod ingress-nginx/a is not running (Pending, ContainerCreating)"},
		{"crash loop", []podSpec{{name: "a", phase: corev1.PodRunning, waiting: "CrashLoopBackOff"}}, "", "",
			`container "controller" of pod ingress-nginx/a is not running (waiting: CrashLoopBackOff)`},
		{"terminating", []podSpec{{name: "a", phase: corev1.PodRunning, ready: true, terminating: true}}, "", "",
			"pod ingress-nginx/a is terminating"},
		{"none of several", []podSpec{{name: "a", phase: corev1.PodFailed}, {name: "b", phase: corev1.PodPending, waiting: "ImagePullBackOff"}}, "", "",
			"none of the 2 pods runs a controller: pod ingress-nginx/a is not running (Failed); pod ingress-nginx/b is not running (Pending, ImagePullBackOff)"},
		{"named container", []podSpec{{name: "a", phase: corev1.PodRunning, ready: true, containers: []string{"nginx", "sidecar"}}}, "nginx", "a", ""},
		{"missing container", []podSpec{{name: "a", phase: corev1.PodRunning, ready: true, containers: []string{"nginx", "sidecar"}}}, "controller", "",
			`pod ingress-nginx/a has no container "controller" (it has nginx, sidecar): name the controller container with --container`},
		{"sidecars, no controller named", []podSpec{{name: "a", phase: corev1.PodRunning, ready: true, containers: []string{"nginx", "sidecar"}}}, "", "a", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pods []corev1.Pod
			for _, p := range tc.pods {
				pods = append(pods, *p.pod(testNS))
			}
			got, err := choosePod(pods, tc.container)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tc.want {
				t.Errorf("chose %s, want %s", got.Name, tc.want)
			}
		})
	}
}

const (
	answerA = `[{"name":"shop-web-80","port":80,"endpoints":[{"address":"10.0.0.1","port":"8080"},{"address":"10.0.0.2","port":"8080"}],"load-balance":"round_robin"},
{"name":"shop-api-80","port":80,"endpoints":[{"address":"10.0.1.1","port":"8080"}],"load-balance":"ewma"}]`
	// answerB lacks an endpoint of shop-web-80, balances shop-api-80
	// otherwise and has a backend more.
	answerB = `[{"name":"shop-web-80","port":80,"endpoints":[{"address":"10.0.0.2","port":"8080"}],"load-balance":"round_robin"},
{"name":"shop-api-80","port":80,"endpoints":[{"address":"10.0.1.1","port":"8080"}],"load-balance":"round_robin"},
{"name":"shop-new-80","port":80,"endpoints":[]}]`
)

// threePods is a controller Deployment with pods a and b running and c
// pending.
func threePods() []podSpec {
	return []podSpec{
		{name: "ctrl-a", labels: controllerLabels, phase: corev1.PodRunning, ready: true},
		{name: "ctrl-b", labels: controllerLabels, phase: corev1.PodRunning, ready: true},
		{name: "ctrl-c", labels: controllerLabels, phase: corev1.PodPending, waiting: "ContainerCreating"},
	}
}

func clusterWith(pods []podSpec, d statusDialer) clusterClients {
	objs := []runtime.Object{controllerDeployment(testNS, ingressNginxDeployment)}
	for _, p := range pods {
		objs = append(objs, p.pod(testNS))
	}
	return fakeCluster(fakeClientset(objs...), d)
}

func TestBackendsAsksTheChosenPod(t *testing.T) {
	d := &fakeDialer{urls: map[string]string{"ctrl-a": statusServer(t, answerA), "ctrl-b": statusServer(t, answerB)}}
	code, out, errOut := runBackends(t, clusterWith(threePods(), d), "-o", "name")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != "shop-api-80\nshop-web-80\n" {
		t.Errorf("stdout = %q", out)
	}
	if strings.Join(d.opened, ",") != "ctrl-a" || strings.Join(d.closed, ",") != "ctrl-a" {
		t.Errorf("opened %v, closed %v; want ctrl-a once", d.opened, d.closed)
	}

	code, out, _ = runBackends(t, clusterWith(threePods(), d), "--pod", "ctrl-b", "--backend", "shop-new-80", "-o", "json")
	if code != 0 || !strings.HasPrefix(out, "{\n") || !strings.Contains(out, `"name": "shop-new-80"`) {
		t.Errorf("--pod ctrl-b --backend shop-new-80 -o json: exit %d, %s", code, out)
	}
}

func TestBackendsErrorsNamePodAndCause(t *testing.T) {
	refused := &fakeDialer{
		urls:    map[string]string{},
		openErr: map[string]error{"ctrl-a": errString(`port-forward to pod ingress-nginx/ctrl-a port 10246 refused: error upgrading connection: pods "ctrl-a" is forbidden`)},
	}
	notJSON := &fakeDialer{urls: map[string]string{"ctrl-a": statusServer(t, "<html>hello</html>")}}
	lost := &fakeDialer{
		urls:     map[string]string{"ctrl-a": "http://127.0.0.1:1"},
		closeErr: map[string]error{"ctrl-a": errString("An error occurred forwarding: connect: connection refused")},
	}
	for _, tc := range []struct {
		name string
		d    *fakeDialer
		args []string
		want []string
	}{
		{"no such pod", refused, []string{"--pod", "ctrl-z"}, []string{`error: no controller found: pod "ctrl-z" not found in namespace "kubectl-ingress"; pod "ctrl-z" not found in namespace "ingress-nginx"; name the controller with`}},
		{"pod not running", refused, []string{"--pod", "ctrl-c"}, []string{"error: pod ingress-nginx/ctrl-c is not running (Pending, ContainerCreating)"}},
		{"port-forward refused", refused, nil, []string{"error: pod ingress-nginx/ctrl-a: port-forward to pod ingress-nginx/ctrl-a port 10246 refused: error upgrading connection"}},
		{"not JSON", notJSON, nil, []string{`error: pod ingress-nginx/ctrl-a: GET /configuration/backends: the answer is not a JSON array of backends: it begins "<html>hello</html>"`}},
		{"connection lost", lost, nil, []string{"error: pod ingress-nginx/ctrl-a: port-forward failed: An error occurred forwarding: connect: connection refused (GET /configuration/backends: "}},
		{"no deployment", refused, []string{"-n", "default"}, []string{`error: no controller found: deployment "kubectl-ingress-controller" not found in namespace "default"; deployment "ingress-nginx-controller" not found in namespace "default"; name`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runBackends(t, clusterWith(threePods(), tc.d), tc.args...)
			if code != exitFailure || out != "" {
				t.Fatalf("exit %d, stdout %q; want 3 and nothing", code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
		})
	}
}

func TestBackendsAllPodsDisagree(t *testing.T) {
	d := &fakeDialer{urls: map[string]string{"ctrl-a": statusServer(t, answerA), "ctrl-b": statusServer(t, answerB)}}
	code, out, errOut := runBackends(t, clusterWith(threePods(), d), "--all-pods")
	if code != backendsExitDisagree {
		t.Fatalf("exit %d, want %d; stderr %s", code, backendsExitDisagree, errOut)
	}
	want := `Backends of pod ctrl-a (2 of 2 pods answered: ctrl-a, ctrl-b)
NAME          BALANCER      READY   ENDPOINTS                     CANARY
shop-api-80   ewma          1       10.0.1.1:8080                 -
shop-web-80   round_robin   2       10.0.0.1:8080,10.0.0.2:8080   -

The pods disagree on 3 backend aspect(s):
  shop-api-80: balancer
    ctrl-a  ewma
    ctrl-b  round_robin
  shop-new-80: presence
    ctrl-a  absent
    ctrl-b  present
  shop-web-80: endpoints
    ctrl-a  2 endpoints
    ctrl-b  1 endpoints, lacks 10.0.0.1:8080
`
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	if !strings.Contains(errOut, "skipped: pod ingress-nginx/ctrl-c is not running (Pending, ContainerCreating)") {
		t.Errorf("stderr %q does not say that ctrl-c was skipped", errOut)
	}

	// The same as JSON, for a machine.
	code, out, _ = runBackends(t, clusterWith(threePods(), d), "--all-pods", "-o", "json")
	if code != backendsExitDisagree {
		t.Fatalf("-o json: exit %d", code)
	}
	for _, w := range []string{`"agree": false`, `"pod": "ctrl-a"`, `"aspect": "endpoints"`, `"ctrl-b": "1: 10.0.0.2:8080"`, `"ctrl-a": "2: 10.0.0.1:8080,10.0.0.2:8080"`} {
		if !strings.Contains(out, w) {
			t.Errorf("-o json lacks %s:\n%s", w, out)
		}
	}

	// --backend: only that backend is compared.
	code, out, _ = runBackends(t, clusterWith(threePods(), d), "--all-pods", "--backend", "shop-api-80")
	if code != backendsExitDisagree || !strings.Contains(out, "shop-api-80: balancer") || strings.Contains(out, "shop-web-80") {
		t.Errorf("--backend shop-api-80: exit %d\n%s", code, out)
	}
	code, out, _ = runBackends(t, clusterWith(threePods(), d), "--all-pods", "--backend", "shop-new-80", "-o", "name")
	if code != backendsExitDisagree || out != "shop-new-80\n" {
		t.Errorf("--backend shop-new-80 -o name: exit %d, %q", code, out)
	}
}

func TestBackendsAllPodsAgree(t *testing.T) {
	d := &fakeDialer{urls: map[string]string{"ctrl-a": statusServer(t, answerA), "ctrl-b": statusServer(t, answerA)}}
	code, out, errOut := runBackends(t, clusterWith(threePods(), d), "--all-pods", "-l", "app=ingress-nginx-controller")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasSuffix(out, "\nThe 2 pods that answered agree.\n") {
		t.Errorf("stdout:\n%s", out)
	}
	// The order in which pods list endpoints is no difference.
	reordered := `[{"name":"shop-web-80","port":80,"endpoints":[{"address":"10.0.0.2","port":"8080"},{"address":"10.0.0.1","port":"8080"}],"load-balance":"round_robin"},
{"name":"shop-api-80","port":80,"endpoints":[{"address":"10.0.1.1","port":"8080"}],"load-balance":"ewma"}]`
	d.urls["ctrl-b"] = statusServer(t, reordered)
	if code, out, _ := runBackends(t, clusterWith(threePods(), d), "--all-pods"); code != 0 {
		t.Errorf("reordered endpoints: exit %d\n%s", code, out)
	}
}

func TestBackendsAllPodsOneFails(t *testing.T) {
	d := &fakeDialer{
		urls:    map[string]string{"ctrl-a": statusServer(t, answerA)},
		openErr: map[string]error{"ctrl-b": errString("port-forward to pod ingress-nginx/ctrl-b port 10246 refused: boom")},
	}
	code, out, errOut := runBackends(t, clusterWith(threePods(), d), "--all-pods")
	if code != exitFailure {
		t.Fatalf("exit %d, want 3", code)
	}
	if !strings.Contains(out, "Only pod ctrl-a answered: nothing to compare.") || !strings.Contains(out, "shop-web-80") {
		t.Errorf("stdout:\n%s", out)
	}
	for _, w := range []string{"error: pod ingress-nginx/ctrl-b: port-forward to pod ingress-nginx/ctrl-b port 10246 refused: boom", "error: 1 of the 2 pods did not answer"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr %q lacks %q", errOut, w)
		}
	}
}

func TestBackendsValidate(t *testing.T) {
	d := &fakeDialer{}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "xml"}, `--output must be one of table, wide, json, yaml, name, custom-columns, custom-columns-file, go-template, go-template-file, jsonpath, jsonpath-as-json, jsonpath-file, template, templatefile, got "xml"`},
		{[]string{"--list", "--backend", "x"}, "--list and --backend cannot both be given"},
		{[]string{"--pod", "a", "-l", "app=x"}, "give one of --pod, -l, --deployment and --url, not --pod and -l/--selector"},
		{[]string{"--deployment", "d", "--url", "http://127.0.0.1:1"}, "give one of --pod, -l, --deployment and --url, not --deployment and --url"},
		{[]string{"--url", "127.0.0.1:10246"}, `--url must be an http:// or https:// URL such as http://127.0.0.1:10246, got "127.0.0.1:10246"`},
		{[]string{"--url", "http://127.0.0.1:1", "--all-pods"}, "--all-pods asks the pods of the cluster; it cannot be combined with --url"},
		{[]string{"--status-port", "0"}, "--status-port must be between 1 and 65535, got 0"},
		{[]string{"--list", "-o", "json"}, "--list prints the names; it cannot be combined with -o json"},
	} {
		code, _, errOut := runBackends(t, clusterWith(threePods(), d), tc.args...)
		if code != exitFailure || strings.TrimSpace(errOut) != "error: "+tc.want {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
	if len(d.opened) != 0 {
		t.Errorf("a bad flag still opened %v", d.opened)
	}
}

func TestBackendsNoBackends(t *testing.T) {
	d := &fakeDialer{urls: map[string]string{"ctrl-a": statusServer(t, "[]")}}
	code, out, errOut := runBackends(t, clusterWith(threePods(), d))
	if code != 0 || out != "" || errOut != "No backends.\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// Without flags the controller is looked for where deploy/ installs ours,
// then where ingress-nginx's install puts its own; -n keeps the two
// Deployment names in that namespace; --deployment with -n is one place.
func TestBackendsDefaultLocations(t *testing.T) {
	ours := podSpec{name: "ours-1", labels: map[string]string{"app": defaultControllerDeployment}, phase: corev1.PodRunning, ready: true}
	theirs := podSpec{name: "theirs-1", labels: map[string]string{"app": ingressNginxDeployment}, phase: corev1.PodRunning, ready: true}
	both := fakeClientset(
		controllerDeployment(defaultControllerNamespace, defaultControllerDeployment), ours.pod(defaultControllerNamespace),
		controllerDeployment(ingressNginxNamespace, ingressNginxDeployment), theirs.pod(ingressNginxNamespace),
		controllerDeployment("edge", ingressNginxDeployment), theirs.pod("edge"),
	)
	onlyTheirs := fakeClientset(controllerDeployment(ingressNginxNamespace, ingressNginxDeployment), theirs.pod(ingressNginxNamespace))
	for _, tc := range []struct {
		name  string
		cs    *fake.Clientset
		ns    string
		flags BackendsOptions
		want  string // namespace/pod
	}{
		{"ours first", both, "", BackendsOptions{}, "kubectl-ingress/ours-1"},
		{"ingress-nginx's when ours is absent", onlyTheirs, "", BackendsOptions{}, "ingress-nginx/theirs-1"},
		{"-n with either name", both, "edge", BackendsOptions{}, "edge/theirs-1"},
		{"--deployment in both namespaces", both, "", BackendsOptions{Deployment: ingressNginxDeployment}, "ingress-nginx/theirs-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.flags
			ns := tc.ns
			o.ConfigFlags = genericclioptions.NewConfigFlags(false)
			o.ConfigFlags.Namespace = &ns
			pods, q, err := findPodsOf(context.Background(), tc.cs, o.podQueries())
			if err != nil {
				t.Fatal(err)
			}
			if got := q.Namespace + "/" + pods[0].Name; got != tc.want {
				t.Errorf("found %s, want %s", got, tc.want)
			}
		})
	}
}
