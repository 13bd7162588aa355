package deploy_test

import (
	"path"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/admission"
)

// The webhook component wires one path through: the API server calls the
// Service at admission.Path, the Service reaches the container's webhook
// port, the flags name the mounted certificate.
func TestWebhookComponent(t *testing.T) {
	objs := renderKustomization(t, webhookDir)
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	find(t, objs, "ValidatingWebhookConfiguration", "kubectl-ingress-admission", &vwc)
	if len(vwc.Webhooks) != 1 {
		t.Fatalf("%d webhooks, want 1", len(vwc.Webhooks))
	}
	wh := vwc.Webhooks[0]
	ref := wh.ClientConfig.Service
	if ref == nil || ref.Path == nil || *ref.Path != admission.Path || ref.Namespace != namespace {
		t.Fatalf("webhook clientConfig %+v: want the Service in %s at %s", wh.ClientConfig, namespace, admission.Path)
	}
	var svc corev1.Service
	find(t, objs, "Service", ref.Name, &svc)
	d, c := controllerContainer(t, webhookDir)
	var target int32
	for _, p := range svc.Spec.Ports {
		if ref.Port != nil && p.Port == *ref.Port {
			for _, cp := range c.Ports {
				if cp.Name == p.TargetPort.StrVal {
					target = cp.ContainerPort
				}
			}
		}
	}
	if target != 8443 || flagValue(c.Args, "validating-webhook") != ":8443" {
		t.Errorf("the Service reaches container port %d; --validating-webhook=%q", target, flagValue(c.Args, "validating-webhook"))
	}
	for k, v := range svc.Spec.Selector {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("Service %s selects %s=%s, which the pods do not have", svc.Name, k, v)
		}
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	for _, flag := range []string{"validating-webhook-certificate", "validating-webhook-key"} {
		dir := path.Dir(flagValue(c.Args, flag))
		name, ok := mounts[dir]
		if !ok {
			t.Errorf("--%s: nothing is mounted at %s", flag, dir)
			continue
		}
		found := false
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.Name != name {
				continue
			}
			found = true
			if v.Secret == nil || v.Secret.SecretName != "kubectl-ingress-admission" {
				t.Errorf("--%s: volume %s is not the Secret kubectl-ingress-admission", flag, name)
			}
		}
		if !found {
			t.Errorf("--%s: the mount at %s names volume %s, which the pod does not have", flag, dir, name)
		}
	}
	if wh.SideEffects == nil || *wh.SideEffects != admissionregistrationv1.SideEffectClassNone {
		t.Error("the webhook must declare sideEffects None (it only renders)")
	}
}
