package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// liveSnapshot lists the objects the controller would see, as far as the
// change in files can touch them: with -A every namespace; else the
// namespaces that files name and ns (the namespace of the objects that
// name none), and from the controller's own namespaces only its ConfigMaps
// (--configmap, --tcp-services-configmap, --udp-services-configmap) and its
// --default-ssl-certificate. It says on stderr what it read.
func (o *DiffOptions) liveSnapshot(ctx context.Context, ns string, files render.Snapshot) (render.Snapshot, error) {
	var namespaces []string
	if !o.AllNamespaces {
		namespaces = snapshotNamespaces(files, ns)
	}
	s, source, err := readClusterObjects(ctx, o.ConfigFlags, namespaces, o.Render)
	if err != nil {
		return s, err
	}
	fmt.Fprintln(o.ErrOut, "live: "+strings.TrimPrefix(source, "the cluster, "))
	return s, nil
}

// snapshotNamespaces are the namespaces of s's namespaced objects and ns,
// sorted.
func snapshotNamespaces(s render.Snapshot, ns string) []string {
	set := map[string]bool{ns: true}
	for _, o := range s.Ingresses {
		set[o.Namespace] = true
	}
	for _, o := range s.Services {
		set[o.Namespace] = true
	}
	for _, o := range s.EndpointSlices {
		set[o.Namespace] = true
	}
	for _, o := range s.Secrets {
		set[o.Namespace] = true
	}
	for _, o := range s.ConfigMaps {
		set[o.Namespace] = true
	}
	delete(set, "")
	return slices.Sorted(maps.Keys(set))
}

// listNamespaces lists the objects of each namespace (IngressClasses once).
func listNamespaces(ctx context.Context, cs kubernetes.Interface, namespaces []string) (render.Snapshot, error) {
	var all render.Snapshot
	for i, ns := range namespaces {
		s, err := listSnapshot(ctx, cs, ns)
		if err != nil {
			return all, fmt.Errorf("namespace %s: %w", ns, err)
		}
		if i == 0 {
			all.IngressClasses = s.IngressClasses
		}
		all.Ingresses = append(all.Ingresses, s.Ingresses...)
		all.Services = append(all.Services, s.Services...)
		all.EndpointSlices = append(all.EndpointSlices, s.EndpointSlices...)
		all.Secrets = append(all.Secrets, s.Secrets...)
		all.ConfigMaps = append(all.ConfigMaps, s.ConfigMaps...)
	}
	return all, nil
}

// getControllerObjects gets the controller's ConfigMaps and default
// certificate that live outside namespaces (absent ones are left out:
// render reports a --configmap given and absent).
func getControllerObjects(ctx context.Context, cs kubernetes.Interface, namespaces []string, f RenderFlags) (render.Snapshot, error) {
	var s render.Snapshot
	outside := func(ref string) (string, string, bool) {
		ns, name, ok := strings.Cut(ref, "/")
		return ns, name, ok && !slices.Contains(namespaces, ns)
	}
	for _, ref := range []string{f.ConfigMap, f.TCPServicesConfigMap, f.UDPServicesConfigMap} {
		ns, name, ok := outside(ref)
		if !ok {
			continue
		}
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return s, fmt.Errorf("getting ConfigMap %s: %w", ref, err)
		}
		s.ConfigMaps = append(s.ConfigMaps, cm)
	}
	if ns, name, ok := outside(f.DefaultSSLCertificate); ok {
		sec, err := cs.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return s, fmt.Errorf("getting Secret %s: %w", f.DefaultSSLCertificate, err)
		default:
			s.Secrets = append(s.Secrets, sec)
		}
	}
	return s, nil
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
