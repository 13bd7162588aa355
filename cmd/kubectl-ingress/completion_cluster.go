package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
)

// registerNamespaceCompletion completes flag with the namespaces of the
// cluster, as kubectl completes -n.
func registerNamespaceCompletion(cmd *cobra.Command, clients clusterClients, flags func(*cobra.Command) *genericclioptions.ConfigFlags, flag string) {
	if cmd.Flags().Lookup(flag) == nil {
		return
	}
	_ = cmd.RegisterFlagCompletionFunc(flag, func(c *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		return completeFromCluster(func(ctx context.Context) ([]string, error) {
			cs, err := clients.clientset(flags(c))
			if err != nil {
				return nil, err
			}
			return namespaceNames(ctx, cs)
		}, prefix)
	})
}

func namespaceNames(ctx context.Context, cs kubernetes.Interface) ([]string, error) {
	list, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(list.Items))
	for _, ns := range list.Items {
		out = append(out, ns.Name)
	}
	return out, nil
}

// registerClusterObjectCompletions completes the controller flags that name
// cluster objects, on the commands that have them: --ingress-class with
// the IngressClasses (and their controller), --controller-class with their
// spec.controller values, and the namespace/name flags with namespaces,
// then the objects of the namespace typed (--configmap and the TCP/UDP
// ConfigMaps, --publish-service). Secrets are not listed: a list returns
// their data.
func registerClusterObjectCompletions(cmd *cobra.Command, clients clusterClients) {
	register := func(flag string, list func(ctx context.Context, cs kubernetes.Interface, prefix string) ([]string, cobra.ShellCompDirective, error)) {
		if cmd.Flags().Lookup(flag) == nil {
			return
		}
		_ = cmd.RegisterFlagCompletionFunc(flag, func(c *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
			directive := cobra.ShellCompDirectiveNoFileComp
			names, _ := completeFromCluster(func(ctx context.Context) ([]string, error) {
				cs, err := clients.clientset(configFlagsOf(c))
				if err != nil {
					return nil, err
				}
				out, d, err := list(ctx, cs, prefix)
				directive = d
				return out, err
			}, prefix)
			return names, directive
		})
	}
	noFiles := cobra.ShellCompDirectiveNoFileComp
	register("ingress-class", func(ctx context.Context, cs kubernetes.Interface, _ string) ([]string, cobra.ShellCompDirective, error) {
		list, err := cs.NetworkingV1().IngressClasses().List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, noFiles, err
		}
		var out []string
		for _, ic := range list.Items {
			out = append(out, ic.Name+"\t"+ic.Spec.Controller)
		}
		return out, noFiles, nil
	})
	register("controller-class", func(ctx context.Context, cs kubernetes.Interface, _ string) ([]string, cobra.ShellCompDirective, error) {
		list, err := cs.NetworkingV1().IngressClasses().List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, noFiles, err
		}
		seen := map[string]bool{}
		var out []string
		for _, ic := range list.Items {
			if c := ic.Spec.Controller; c != "" && !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
		return out, noFiles, nil
	})
	configMaps := func(ctx context.Context, cs kubernetes.Interface, ns string) ([]string, error) {
		list, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		var out []string
		for _, o := range list.Items {
			out = append(out, o.Name)
		}
		return out, nil
	}
	for _, flag := range []string{"configmap", "tcp-services-configmap", "udp-services-configmap"} {
		register(flag, namespacedNames(configMaps))
	}
	register("publish-service", namespacedNames(func(ctx context.Context, cs kubernetes.Interface, ns string) ([]string, error) {
		list, err := cs.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		var out []string
		for _, o := range list.Items {
			out = append(out, o.Name)
		}
		return out, nil
	}))
}

// namespacedNames completes a namespace/name value: the namespaces
// followed by "/" (without a space after) until one is typed, then that
// namespace's objects as namespace/name.
func namespacedNames(names func(ctx context.Context, cs kubernetes.Interface, ns string) ([]string, error)) func(ctx context.Context, cs kubernetes.Interface, prefix string) ([]string, cobra.ShellCompDirective, error) {
	return func(ctx context.Context, cs kubernetes.Interface, prefix string) ([]string, cobra.ShellCompDirective, error) {
		ns, _, typed := strings.Cut(prefix, "/")
		if !typed {
			list, err := namespaceNames(ctx, cs)
			for i := range list {
				list[i] += "/"
			}
			return list, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace, err
		}
		list, err := names(ctx, cs, ns)
		for i := range list {
			list[i] = ns + "/" + list[i]
		}
		return list, cobra.ShellCompDirectiveNoFileComp, err
	}
}
