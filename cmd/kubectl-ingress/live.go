package main

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// liveSnapshot lists the objects the controller would see in namespace
// ("" for all): Ingresses, IngressClasses, Services, EndpointSlices, TLS
// Secrets and ConfigMaps.
func (o *DiffOptions) liveSnapshot(ctx context.Context, namespace string) (render.Snapshot, error) {
	cfg, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return render.Snapshot{}, fmt.Errorf("cluster configuration: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return render.Snapshot{}, fmt.Errorf("cluster client: %w", err)
	}
	return listSnapshot(ctx, cs, namespace)
}

func listSnapshot(ctx context.Context, cs kubernetes.Interface, namespace string) (render.Snapshot, error) {
	var s render.Snapshot
	all := metav1.ListOptions{}
	ings, err := cs.NetworkingV1().Ingresses(namespace).List(ctx, all)
	if err != nil {
		return s, fmt.Errorf("listing Ingresses: %w", err)
	}
	classes, err := cs.NetworkingV1().IngressClasses().List(ctx, all)
	if err != nil {
		return s, fmt.Errorf("listing IngressClasses: %w", err)
	}
	svcs, err := cs.CoreV1().Services(namespace).List(ctx, all)
	if err != nil {
		return s, fmt.Errorf("listing Services: %w", err)
	}
	slices, err := cs.DiscoveryV1().EndpointSlices(namespace).List(ctx, all)
	if err != nil {
		return s, fmt.Errorf("listing EndpointSlices: %w", err)
	}
	secrets, err := cs.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{FieldSelector: "type=" + string(corev1.SecretTypeTLS)})
	if err != nil {
		return s, fmt.Errorf("listing TLS Secrets: %w", err)
	}
	cms, err := cs.CoreV1().ConfigMaps(namespace).List(ctx, all)
	if err != nil {
		return s, fmt.Errorf("listing ConfigMaps: %w", err)
	}
	s.Ingresses = pointers(ings.Items)
	s.IngressClasses = pointers(classes.Items)
	s.Services = pointers(svcs.Items)
	s.EndpointSlices = pointers(slices.Items)
	s.Secrets = pointers(secrets.Items)
	s.ConfigMaps = pointers(cms.Items)
	return s, nil
}

func pointers[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// overlay returns live with the objects of files added or put in place of
// the live object of the same kind, namespace and name, as kubectl diff
// compares the cluster with the cluster after an apply.
func overlay(live, files render.Snapshot) render.Snapshot {
	return render.Snapshot{
		Ingresses:      replaceObjects(live.Ingresses, files.Ingresses, func(o *networkingv1.Ingress) string { return o.Namespace + "/" + o.Name }),
		IngressClasses: replaceObjects(live.IngressClasses, files.IngressClasses, func(o *networkingv1.IngressClass) string { return o.Name }),
		Services:       replaceObjects(live.Services, files.Services, func(o *corev1.Service) string { return o.Namespace + "/" + o.Name }),
		EndpointSlices: replaceObjects(live.EndpointSlices, files.EndpointSlices, func(o *discoveryv1.EndpointSlice) string { return o.Namespace + "/" + o.Name }),
		Secrets:        replaceObjects(live.Secrets, files.Secrets, func(o *corev1.Secret) string { return o.Namespace + "/" + o.Name }),
		ConfigMaps:     replaceObjects(live.ConfigMaps, files.ConfigMaps, func(o *corev1.ConfigMap) string { return o.Namespace + "/" + o.Name }),
	}
}

func replaceObjects[T any](live, files []*T, key func(*T) string) []*T {
	byKey := make(map[string]*T, len(files))
	for _, f := range files {
		byKey[key(f)] = f
	}
	out := make([]*T, 0, len(live)+len(files))
	for _, l := range live {
		if f, ok := byKey[key(l)]; ok {
			out = append(out, f)
			delete(byKey, key(l))
			continue
		}
		out = append(out, l)
	}
	for _, f := range files {
		if _, ok := byKey[key(f)]; ok {
			out = append(out, f)
		}
	}
	return out
}
