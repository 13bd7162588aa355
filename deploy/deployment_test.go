package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

const (
	deploymentName = "kubectl-ingress-controller"
	// defaultNginxPrefix is the controller's --nginx-prefix default in a
	// cluster (cmd/kubectl-ingress/controller.go).
	defaultNginxPrefix = "/etc/kubectl-ingress"
	metricsPort        = 10254
)

// controllerContainer returns the Deployment and its container "controller".
func controllerContainer(t *testing.T, dir string) (*appsv1.Deployment, *corev1.Container) {
	t.Helper()
	var d appsv1.Deployment
	find(t, renderKustomization(t, dir), "Deployment", deploymentName, &d)
	for i := range d.Spec.Template.Spec.Containers {
		if c := &d.Spec.Template.Spec.Containers[i]; c.Name == "controller" {
			return &d, c
		}
	}
	t.Fatalf("%s: Deployment %s has no container named controller", dir, deploymentName)
	return nil, nil
}

// flagValue returns the value of --name=value in args, or "".
func flagValue(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}

func TestDeploymentSpec(t *testing.T) {
	d, c := controllerContainer(t, baseDir)
	pod := d.Spec.Template.Spec
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("replicas = %v, want 2", d.Spec.Replicas)
	}
	if pod.ServiceAccountName != "kubectl-ingress" {
		t.Errorf("serviceAccountName = %q, want the ServiceAccount the roles are bound to", pod.ServiceAccountName)
	}

	// The downward API gives the pod's name (Events, the Lease holder)
	// and namespace (the Lease, $(POD_NAMESPACE) in the flags).
	fields := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
			fields[e.Name] = e.ValueFrom.FieldRef.FieldPath
		}
	}
	if fields["POD_NAME"] != "metadata.name" || fields["POD_NAMESPACE"] != "metadata.namespace" {
		t.Errorf("env from the downward API = %v, want POD_NAME=metadata.name and POD_NAMESPACE=metadata.namespace", fields)
	}

	// Probes on the health server's port.
	port := func(p intstr.IntOrString) int32 {
		if p.Type == intstr.Int {
			return p.IntVal
		}
		for _, cp := range c.Ports {
			if cp.Name == p.StrVal {
				return cp.ContainerPort
			}
		}
		return -1
	}
	for name, probe := range map[string]*corev1.Probe{"/healthz": c.LivenessProbe, "/readyz": c.ReadinessProbe} {
		if probe == nil || probe.HTTPGet == nil {
			t.Errorf("no HTTP probe for %s", name)
			continue
		}
		if probe.HTTPGet.Path != name || port(probe.HTTPGet.Port) != metricsPort {
			t.Errorf("probe %s asks %s on port %d, want port %d", name, probe.HTTPGet.Path, port(probe.HTTPGet.Port), metricsPort)
		}
	}

	// Resources.
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, ok := c.Resources.Requests[r]; !ok || q.IsZero() {
			t.Errorf("no %s request", r)
		}
	}
	if q, ok := c.Resources.Limits[corev1.ResourceMemory]; !ok || q.IsZero() {
		t.Error("no memory limit")
	}

	// Security: non-root, no privilege escalation, read-only root, all
	// capabilities dropped but the one to bind 80 and 443.
	psc, sc := pod.SecurityContext, c.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("pod securityContext %+v: want runAsNonRoot and a non-zero runAsUser", psc)
	}
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("pod securityContext: want seccompProfile RuntimeDefault")
	}
	switch {
	case sc == nil:
		t.Fatal("the container has no securityContext")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("allowPrivilegeEscalation must be false")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("readOnlyRootFilesystem must be true")
	case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) ||
		!slices.Equal(sc.Capabilities.Add, []corev1.Capability{"NET_BIND_SERVICE"}):
		t.Errorf("capabilities %+v: want drop ALL, add NET_BIND_SERVICE only", sc.Capabilities)
	}

	// With a read-only root, everything written goes to an emptyDir:
	// nginx's prefix (where the controller writes nginx.conf, Lua,
	// certificates, logs and temp files) and /tmp.
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
		if v, ok := volumes[m.Name]; !ok || v.EmptyDir == nil {
			t.Errorf("mount %s is not an emptyDir volume", m.MountPath)
		}
	}
	prefix := flagValue(c.Args, "nginx-prefix")
	if prefix == "" {
		prefix = defaultNginxPrefix
	}
	for _, dir := range []string{prefix, "/tmp"} {
		if _, ok := mounts[dir]; !ok {
			t.Errorf("%s is not mounted (an emptyDir is needed with readOnlyRootFilesystem)", dir)
		}
	}

	// Termination: the pod gets longer than the controller's own shutdown
	// (grace with nginx serving, nginx's graceful quit, the wait after).
	shutdown := time.Duration(0)
	for _, f := range []struct {
		name, unit string
		dflt       time.Duration
	}{{"shutdown-grace-period", "s", 0}, {"nginx-quit-timeout", "", controller.DefaultStopTimeout}, {"post-shutdown-grace-period", "s", 0}} {
		v := flagValue(c.Args, f.name)
		if v == "" {
			shutdown += f.dflt
			continue
		}
		d, err := time.ParseDuration(v + f.unit)
		if err != nil {
			t.Errorf("--%s: %v", f.name, err)
		}
		shutdown += d
	}
	if tg := pod.TerminationGracePeriodSeconds; tg == nil || time.Duration(*tg)*time.Second <= shutdown {
		t.Errorf("terminationGracePeriodSeconds %v is not longer than the controller's shutdown, %v", tg, shutdown)
	}

	// The flags name the objects of the kustomization.
	for flag, want := range map[string]string{
		"publish-service":  "$(POD_NAMESPACE)/kubectl-ingress-controller",
		"configmap":        "$(POD_NAMESPACE)/kubectl-ingress-controller",
		"ingress-class":    "nginx",
		"controller-class": render.DefaultOptions().ControllerClass,
	} {
		if got := flagValue(c.Args, flag); got != want {
			t.Errorf("--%s=%q, want %q", flag, got, want)
		}
	}
	if flagValue(c.Args, "election-id") == "" {
		t.Error("no --election-id")
	}
}

// The Services reach the pods: their selectors match the pod template and
// their target ports are ports of the container.
func TestServicesAndClass(t *testing.T) {
	objs := renderKustomization(t, baseDir)
	d, c := controllerContainer(t, baseDir)
	named := map[string]int32{}
	for _, p := range c.Ports {
		named[p.Name] = p.ContainerPort
	}
	for name, want := range map[string]map[int32]int32{
		"kubectl-ingress-controller":         {80: 80, 443: 443},
		"kubectl-ingress-controller-metrics": {metricsPort: metricsPort},
	} {
		var svc corev1.Service
		find(t, objs, "Service", name, &svc)
		for k, v := range svc.Spec.Selector {
			if d.Spec.Template.Labels[k] != v {
				t.Errorf("Service %s selects %s=%s, which the pods do not have", name, k, v)
			}
		}
		got := map[int32]int32{}
		for _, p := range svc.Spec.Ports {
			got[p.Port] = named[p.TargetPort.StrVal]
		}
		if !mapsEqual(got, want) {
			t.Errorf("Service %s ports (port → container port) = %v, want %v", name, got, want)
		}
	}
	var lb corev1.Service
	find(t, objs, "Service", "kubectl-ingress-controller", &lb)
	if lb.Spec.Type != corev1.ServiceTypeLoadBalancer {
		t.Errorf("Service kubectl-ingress-controller is %s, want LoadBalancer", lb.Spec.Type)
	}

	// The IngressClass is the one the controller serves.
	checkClassMatchesFlags(t, objs)
}

// appsDeployment is appsv1.Deployment, for objectsOf.
type appsDeployment = appsv1.Deployment

func mapsEqual(a, b map[int32]int32) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Every key of the ConfigMap is one the controller supports with a valid
// value: render reports no Problem for it.
func TestConfigMapKeys(t *testing.T) {
	var cm corev1.ConfigMap
	find(t, renderKustomization(t, baseDir), "ConfigMap", "kubectl-ingress-controller", &cm)
	if len(cm.Data) == 0 {
		t.Fatal("the ConfigMap has no keys")
	}
	opts := render.DefaultOptions()
	opts.ConfigMap = cm.Namespace + "/" + cm.Name
	_, problems := render.Build(render.Snapshot{ConfigMaps: []*corev1.ConfigMap{&cm}}, opts)
	for _, p := range problems {
		if p.Object.Kind == "ConfigMap" {
			t.Errorf("ConfigMap: %s", p)
		}
	}
	// The check sees a bad key.
	cm.Data["no-such-key"] = "1"
	_, problems = render.Build(render.Snapshot{ConfigMaps: []*corev1.ConfigMap{&cm}}, opts)
	if !slices.ContainsFunc(problems, func(p model.Problem) bool { return p.Object.Kind == "ConfigMap" }) {
		t.Error("render reports no ConfigMap Problem for an unknown key: the check above proves nothing")
	}
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// controllerBinary builds cmd/kubectl-ingress once.
func controllerBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "deploy-test-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "kubectl-ingress")
		out, err := exec.Command("go", "build", "-o", binary, "../cmd/kubectl-ingress").CombinedOutput()
		if err != nil {
			buildErr = &buildError{err: err, out: string(out)}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string {
	return "go build ../cmd/kubectl-ingress: " + e.err.Error() + ": " + e.out
}

// The real controller command accepts the Deployment's arguments: every
// flag exists and every value parses (cobra parses the flags before it
// looks at --help).
func TestDeploymentArgsAccepted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := controllerBinary(t)
	entrypoint := imageEntrypoint(t)
	for _, dir := range []string{baseDir, webhookDir} {
		_, c := controllerContainer(t, dir)
		if len(c.Command) > 0 {
			t.Errorf("%s: the container overrides the image's ENTRYPOINT %v with %v", dir, entrypoint, c.Command)
		}
		// As the container runs: the ENTRYPOINT's arguments, then args.
		args := append(append(slices.Clone(entrypoint[1:]), c.Args...), "--help")
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Errorf("%s: kubectl-ingress %s: %v\n%s", dir, strings.Join(args, " "), err, firstLines(string(out), 3))
		}
	}
	// The check fails on an unknown flag.
	if out, err := exec.Command(bin, "controller", "--no-such-flag=1", "--help").CombinedOutput(); err == nil {
		t.Errorf("an unknown flag was accepted: %s", firstLines(string(out), 3))
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary))
	}
	os.Exit(code)
}
