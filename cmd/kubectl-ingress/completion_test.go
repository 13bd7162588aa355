package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// completionRoot is the command tree of NewCmdRoot with the cluster given
// by clients, for cobra's __complete.
func completionRoot(clients clusterClients) (*cobra.Command, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	root := &cobra.Command{Use: "kubectl-ingress", SilenceErrors: true, SilenceUsage: true}
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.AddCommand(NewCmdRender(streams), NewCmdDiff(streams), NewCmdController(streams), newCmdBackends(NewBackendsOptions(streams, clients)), NewCmdCompletion(streams))
	addPluginVerbs(root, streams)
	registerCompletions(root, clients)
	return root, &out
}

// complete runs "kubectl-ingress __complete args…" and returns the
// completions and the directive line.
func complete(t *testing.T, clients clusterClients, args ...string) ([]string, string) {
	t.Helper()
	root, out := completionRoot(clients)
	root.SetArgs(append([]string{cobra.ShellCompRequestCmd}, args...))
	if err := root.Execute(); err != nil {
		t.Fatalf("__complete %v: %v", args, err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

func completionCluster(t *testing.T) clusterClients {
	objs := []k8sruntime.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ingress-nginx"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kube-system"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}},
		controllerDeployment(testNS, ingressNginxDeployment),
		controllerDeployment(testNS, "internal-controller"),
		podSpec{name: "ingress-nginx-controller-x1", labels: controllerLabels, phase: corev1.PodRunning, ready: true,
			containers: []string{"controller", "log-shipper"}}.pod(testNS),
		podSpec{name: "ingress-nginx-controller-x2", labels: controllerLabels, phase: corev1.PodPending}.pod(testNS),
		podSpec{name: "kube-dns-1", phase: corev1.PodRunning}.pod("kube-system"),
	}
	d := &fakeDialer{urls: map[string]string{"ingress-nginx-controller-x1": statusServer(t, answerB)}}
	return fakeCluster(fakeClientset(objs...), d)
}

const noFiles = ":4" // cobra.ShellCompDirectiveNoFileComp

func TestCompletion(t *testing.T) {
	clients := completionCluster(t)
	url := statusServer(t, answerA)
	kubeconfig := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(kubeconfig, []byte(testKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args      []string
		want      string // completions, comma-separated
		directive string
	}{
		{[]string{"ba"}, "backends\tShow the backends that a controller pod's nginx is using, as its Lua balancer holds them", noFiles},
		{[]string{"completion", ""}, "bash,zsh,fish,powershell", noFiles},
		{[]string{"backends", "--pod", ""}, "ingress-nginx-controller-x1\tRunning,ingress-nginx-controller-x2\tPending", noFiles},
		{[]string{"backends", "--pod", "ingress-nginx-controller-x2"}, "ingress-nginx-controller-x2\tPending", noFiles},
		{[]string{"backends", "-n", "kube-system", "--pod", ""}, "kube-dns-1\tRunning", noFiles},
		{[]string{"backends", "-n", ""}, "ingress-nginx,kube-system,shop", noFiles},
		{[]string{"backends", "--namespace", "ku"}, "kube-system", noFiles},
		{[]string{"backends", "--deployment", ""}, "ingress-nginx-controller,internal-controller", noFiles},
		{[]string{"backends", "--container", ""}, "controller,log-shipper", noFiles},
		{[]string{"backends", "--backend", ""}, "shop-api-80,shop-new-80,shop-web-80", noFiles},
		{[]string{"backends", "--url", url, "--backend", "shop-w"}, "shop-web-80", noFiles},
		{[]string{"backends", "-n", "shop", "--backend", ""}, "", noFiles}, // no controller there
		{[]string{"backends", "-o", ""}, "table,wide,json,yaml,name", noFiles},
		{[]string{"backends", "--kubeconfig", kubeconfig, "--context", ""}, "prod,staging", noFiles},
		{[]string{"backends", "--kubeconfig", kubeconfig, "--cluster", ""}, "prod-cluster,staging-cluster", noFiles},
		{[]string{"diff", "-o", ""}, "json,yaml", noFiles},
		{[]string{"diff", "--color", ""}, "auto,always,never", noFiles},
		{[]string{"diff", "--fail-on", ""}, "reload,change,problems,never", noFiles},
		{[]string{"diff", "-n", "s"}, "shop", noFiles},
		{[]string{"diff", "--kubeconfig", kubeconfig, "--context", "st"}, "staging", noFiles},
		{[]string{"diff", "--from", ""}, "yaml,yml,json", ":8"}, // ShellCompDirectiveFilterFileExt
		{[]string{"render", "--output-dir", ""}, "", ":16"},     // ShellCompDirectiveFilterDirs
		{[]string{"render", "-o", ""}, "json,yaml,nginx", noFiles},
		{[]string{"lint", "-f", ""}, "yaml,yml,json", ":8"},
		{[]string{"controller", "--from-files", ""}, "", ":16"},
		{[]string{"controller", "--watch-namespace", "sh"}, "shop", noFiles},
		{[]string{"controller", "--kubeconfig", kubeconfig, "--context", "p"}, "prod", noFiles},
	} {
		got, directive := complete(t, clients, tc.args...)
		if strings.Join(got, ",") != tc.want || directive != tc.directive {
			t.Errorf("__complete %q = %q %s, want %q %s", tc.args, strings.Join(got, ","), directive, tc.want, tc.directive)
		}
	}
}

const testKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: prod-cluster
  cluster: {server: "https://prod.example:6443"}
- name: staging-cluster
  cluster: {server: "https://staging.example:6443"}
users:
- name: me
  user: {token: not-a-real-token}
contexts:
- name: prod
  context: {cluster: prod-cluster, user: me}
- name: staging
  context: {cluster: staging-cluster, user: me}
current-context: staging
`

// NewCmdRoot registers what the test tree above registers.
func TestCompletionRegisteredOnRoot(t *testing.T) {
	root := NewCmdRoot(genericiooptions.NewTestIOStreamsDiscard())
	for cmd, flags := range map[string][]string{
		"backends": {"pod", "namespace", "deployment", "container", "backend", "output", "context", "cluster", "user"},
		"diff": {"namespace", "output", "color", "fail-on", "context", "cluster", "user",
			"ingress-class", "controller-class", "configmap"},
		"controller": {"watch-namespace", "namespace", "election-namespace", "context", "cluster", "user",
			"ingress-class", "controller-class", "configmap", "tcp-services-configmap", "udp-services-configmap", "publish-service"},
		"render": {"namespace", "ingress-class", "controller-class", "configmap"},
	} {
		c, _, err := root.Find([]string{cmd})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range flags {
			if _, ok := c.GetFlagCompletionFunc(f); !ok {
				t.Errorf("%s --%s has no completion", cmd, f)
			}
		}
	}
	if c, _, _ := root.Find([]string{"backends"}); !strings.HasPrefix(c.UseLine(), "kubectl ingress backends ") {
		t.Errorf("usage line %q is not written as kubectl ingress", c.UseLine())
	}
}

func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{
		"bash":       "__start_kubectl-ingress",
		"zsh":        "#compdef kubectl-ingress",
		"fish":       "complete -c kubectl-ingress",
		"powershell": "Register-ArgumentCompleter",
	} {
		code, out, errOut := runCmd(t, "", "completion", shell)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("completion %s: exit %d, stderr %q, output lacks %q", shell, code, errOut, want)
		}
	}
	code, _, errOut := runCmd(t, "", "completion", "tcsh")
	if code != exitFailure || !strings.Contains(errOut, `invalid argument "tcsh"`) {
		t.Errorf("completion tcsh: exit %d, stderr %q", code, errOut)
	}
	if code, _, _ := runCmd(t, "", "completion"); code != exitFailure {
		t.Errorf("completion without a shell: exit %d", code)
	}
}

// kubectl_complete-ingress passes its arguments to kubectl-ingress
// __complete, as kubectl's plugin completion calls it.
func TestCompletionKubectlPluginScript(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a POSIX shell script")
	}
	dir := t.TempDir()
	stub := "#!/bin/sh\nprintf '%s|' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "kubectl-ingress"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("../../kubectl_complete-ingress")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(script, "backends", "--pod", "")
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v: %s", script, err, out)
	}
	if string(out) != "__complete|backends|--pod||" {
		t.Errorf("the script ran kubectl-ingress with %q", out)
	}
}

// With kubectl on PATH, kubectl itself completes "kubectl ingress …"
// through the script and the real binary.
func TestCompletionThroughKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not installed")
	}
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "kubectl-ingress"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	script, err := os.ReadFile("../../kubectl_complete-ingress")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kubectl_complete-ingress"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("kubectl", "__complete", "ingress", "backends", "-o", "")
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl __complete: %v: %s", err, stderr.String())
	}
	if got := stdout.String(); got != "table\nwide\njson\nyaml\nname\n:4\n" {
		t.Errorf("kubectl __complete ingress backends -o '' = %q (stderr %s)", got, stderr.String())
	}
}
