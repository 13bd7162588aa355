package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-ingress/kubectl-ingress/internal/envtesting"
)

// Flag values complete from a real API server, through the kubeconfig of
// --kubeconfig or $KUBECONFIG, as kubectl's own completion does.
func TestCompletionEnvtest(t *testing.T) {
	cfg := envtesting.Start(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	for _, ns := range []string{"ingress-nginx", "shop", "team-a"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for name, controller := range map[string]string{"nginx": "k8s.io/ingress-nginx", "internal": "example.com/internal"} {
		ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.IngressClassSpec{Controller: controller}}
		if _, err := cs.NetworkingV1().IngressClasses().Create(ctx, ic, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	meta := metav1.ObjectMeta{Name: "ingress-nginx-controller", Namespace: "ingress-nginx"}
	if _, err := cs.CoreV1().ConfigMaps("ingress-nginx").Create(ctx, &corev1.ConfigMap{ObjectMeta: meta}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	if _, err := cs.CoreV1().Services("ingress-nginx").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "ctrl-1", Namespace: "ingress-nginx"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "controller", Image: "kubectl-ingress"}}}}
	if _, err := cs.CoreV1().Pods("ingress-nginx").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	kubeconfig := writeKubeconfig(t, cfg)
	kc := []string{"--kubeconfig", kubeconfig}
	const noSpace = ":6" // ShellCompDirectiveNoSpace | ShellCompDirectiveNoFileComp
	for _, tc := range []struct {
		args      []string // the command, its flags before the word, the flag and the word
		env       bool     // render has no --kubeconfig: $KUBECONFIG names it
		want      string
		directive string
	}{
		{args: []string{"render", "-n", "te"}, env: true, want: "team-a", directive: noFiles},
		{args: []string{"render", "--ingress-class", ""}, env: true, want: "internal\texample.com/internal,nginx\tk8s.io/ingress-nginx", directive: noFiles},
		{args: []string{"render", "--configmap", "ingress-nginx/ingress"}, env: true, want: "ingress-nginx/ingress-nginx-controller", directive: noFiles},
		{args: []string{"controller", "--namespace", "sh"}, want: "shop", directive: noFiles},
		{args: []string{"controller", "--election-namespace", "ingress"}, want: "ingress-nginx", directive: noFiles},
		{args: []string{"controller", "--watch-namespace", "t"}, want: "team-a", directive: noFiles},
		{args: []string{"controller", "--configmap", "ingress-"}, want: "ingress-nginx/", directive: noSpace},
		{args: []string{"controller", "--tcp-services-configmap", "ingress-nginx/"}, want: "ingress-nginx/ingress-nginx-controller", directive: noFiles},
		{args: []string{"controller", "--publish-service", "ingress-nginx/"}, want: "ingress-nginx/ingress-nginx-controller", directive: noFiles},
		{args: []string{"controller", "--publish-service", "shop/"}, want: "", directive: noFiles},
		{args: []string{"diff", "--controller-class", ""}, want: "example.com/internal,k8s.io/ingress-nginx", directive: noFiles},
		{args: []string{"diff", "--ingress-class", "ng"}, want: "nginx\tk8s.io/ingress-nginx", directive: noFiles},
		{args: []string{"backends", "-n", "ingress-nginx", "--pod", ""}, want: "ctrl-1\tPending", directive: noFiles},
		{args: []string{"backends", "--namespace", "s"}, want: "shop", directive: noFiles},
	} {
		args := []string{"__complete", tc.args[0]}
		if tc.env {
			t.Setenv("KUBECONFIG", kubeconfig)
		} else {
			t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
			args = append(args, kc...)
		}
		args = append(args, tc.args[1:]...)
		code, out, errOut := runCmd(t, "", args...)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		got := strings.Join(lines[:len(lines)-1], ",")
		if code != 0 || got != tc.want || lines[len(lines)-1] != tc.directive {
			t.Errorf("__complete %q: exit %d, %q %s; want %q %s (stderr %s)", tc.args, code, got, lines[len(lines)-1], tc.want, tc.directive, errOut)
		}
	}

	// Without a reachable cluster: no completions, and no file names.
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	code, out, _ := runCmd(t, "", "__complete", "render", "-n", "")
	if code != 0 || out != noFiles+"\n" {
		t.Errorf("__complete render -n '' without a cluster: exit %d, %q", code, out)
	}
}
