package main

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// completionTimeout bounds what a completion asks the cluster: a shell
// must not hang on <TAB>.
const completionTimeout = 5 * time.Second

// manifestExtensions are the files -f, --from and --to complete to (and
// directories).
var manifestExtensions = []string{"yaml", "yml", "json"}

// registerCompletions registers the completion of flag values of the
// commands under root other than backends (which registers its own): fixed
// values, manifest files and directories, and namespaces and kubeconfig
// contexts read through clients.
func registerCompletions(root *cobra.Command, clients clusterClients) {
	for _, c := range root.Commands() {
		switch c.Name() {
		case "diff":
			registerFixed(c, "output", "json", "yaml")
			registerFixed(c, "color", "auto", "always", "never")
			registerFixed(c, "fail-on", "reload", "change", "problems", "never")
			for _, f := range []string{"filename", "from", "to"} {
				_ = c.MarkFlagFilename(f, manifestExtensions...)
			}
			registerKubeconfigCompletions(c, clients, configFlagsOf, "namespace")
			registerClusterObjectCompletions(c, clients)
		case "controller":
			_ = c.MarkFlagDirname("from-files")
			_ = c.MarkFlagDirname("nginx-prefix")
			registerKubeconfigCompletions(c, clients, configFlagsOf, "watch-namespace")
			registerNamespaceCompletion(c, clients, configFlagsOf, "namespace")
			registerNamespaceCompletion(c, clients, configFlagsOf, "election-namespace")
			registerClusterObjectCompletions(c, clients)
		case "render", "conf", "lint":
			_ = c.MarkFlagFilename("filename", manifestExtensions...)
			if c.Name() == "render" {
				_ = c.MarkFlagDirname("output-dir")
				registerFixed(c, "output", renderFormats...)
			}
			// As kubectl's -n: the namespaces of the kubeconfig's cluster
			// (render itself never talks to it).
			registerNamespaceCompletion(c, clients, configFlagsOf, "namespace")
			registerClusterObjectCompletions(c, clients)
		}
	}
}

// registerBackendsCompletions registers the completion of the flags of
// "kubectl ingress backends": pods, Deployments and containers in the
// namespace, backend names from the status server, and fixed values.
func registerBackendsCompletions(cmd *cobra.Command, o *BackendsOptions) {
	registerFixed(cmd, "output", backendsOutputs...)
	registerKubeconfigCompletions(cmd, o.clients, func(*cobra.Command) *genericclioptions.ConfigFlags { return o.ConfigFlags }, "namespace")
	_ = cmd.RegisterFlagCompletionFunc("pod", func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		return completeFromCluster(func(ctx context.Context) ([]string, error) {
			cs, err := o.clients.clientset(o.ConfigFlags)
			if err != nil {
				return nil, err
			}
			var out []string
			for _, ns := range o.lookupNamespaces() {
				list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: o.Selector})
				if err != nil {
					return nil, err
				}
				for _, p := range list.Items {
					out = append(out, p.Name+"\t"+string(p.Status.Phase))
				}
			}
			return out, nil
		}, prefix)
	})
	_ = cmd.RegisterFlagCompletionFunc("deployment", func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		return completeFromCluster(func(ctx context.Context) ([]string, error) {
			cs, err := o.clients.clientset(o.ConfigFlags)
			if err != nil {
				return nil, err
			}
			var out []string
			for _, ns := range o.lookupNamespaces() {
				list, err := cs.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
				if err != nil {
					return nil, err
				}
				for _, d := range list.Items {
					out = append(out, d.Name)
				}
			}
			return out, nil
		}, prefix)
	})
	_ = cmd.RegisterFlagCompletionFunc("container", func(c *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		return completeFromCluster(func(ctx context.Context) ([]string, error) {
			if err := o.Complete(c); err != nil {
				return nil, err
			}
			if o.URL != "" {
				return nil, nil
			}
			pods, _, err := findPodsOf(ctx, o.clientset, o.queries)
			if err != nil {
				return nil, err
			}
			var out []string
			for _, ct := range pods[0].Spec.Containers {
				out = append(out, ct.Name)
			}
			return out, nil
		}, prefix)
	})
	_ = cmd.RegisterFlagCompletionFunc("backend", func(c *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		return completeFromCluster(func(ctx context.Context) ([]string, error) {
			return o.backendNames(ctx, c)
		}, prefix)
	})
}

// backendNames asks the status server that the flags name (as the command
// would) for its backend names.
func (o *BackendsOptions) backendNames(ctx context.Context, cmd *cobra.Command) ([]string, error) {
	o.Backend, o.List, o.AllPods = "", false, false
	if err := o.Complete(cmd); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	var backends []backendInfo
	var err error
	if o.URL != "" {
		backends, err = o.ask(ctx, nil)
	} else {
		pods, _, ferr := findPodsOf(ctx, o.clientset, o.queries)
		if ferr != nil {
			return nil, ferr
		}
		pod, cerr := choosePod(pods, o.Container)
		if cerr != nil {
			return nil, cerr
		}
		backends, err = o.ask(ctx, pod)
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(backends))
	for _, b := range backends {
		names = append(names, b.wire.Name)
	}
	return names, nil
}

// registerKubeconfigCompletions completes namespaceFlag with the namespaces
// of the cluster and --context, --cluster and --user with the kubeconfig's.
func registerKubeconfigCompletions(cmd *cobra.Command, clients clusterClients, flags func(*cobra.Command) *genericclioptions.ConfigFlags, namespaceFlag string) {
	registerNamespaceCompletion(cmd, clients, flags, namespaceFlag)
	for _, flag := range []string{"context", "cluster", "user"} {
		_ = cmd.RegisterFlagCompletionFunc(flag, func(c *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
			return completeFromCluster(func(context.Context) ([]string, error) {
				raw, err := flags(c).ToRawKubeConfigLoader().RawConfig()
				if err != nil {
					return nil, err
				}
				var names []string
				switch flag {
				case "context":
					for n := range raw.Contexts {
						names = append(names, n)
					}
				case "cluster":
					for n := range raw.Clusters {
						names = append(names, n)
					}
				default:
					for n := range raw.AuthInfos {
						names = append(names, n)
					}
				}
				return names, nil
			}, prefix)
		})
	}
}

// registerFixed completes flag with values.
func registerFixed(cmd *cobra.Command, flag string, values ...string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// completeFromCluster runs list within completionTimeout and returns its
// names that begin with prefix. An error gives no completions (shown with
// BASH_COMP_DEBUG_FILE) rather than file names.
func completeFromCluster(list func(ctx context.Context) ([]string, error), prefix string) ([]string, cobra.ShellCompDirective) {
	ctx, cancel := context.WithTimeout(context.Background(), completionTimeout)
	defer cancel()
	names, err := list(ctx)
	if err != nil {
		cobra.CompDebugln(err.Error(), false)
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return withPrefix(names, prefix), cobra.ShellCompDirectiveNoFileComp
}

// withPrefix returns the values (a value may carry a "\tdescription")
// whose name begins with prefix, sorted.
func withPrefix(values []string, prefix string) []string {
	out := []string{}
	for _, v := range values {
		name, _, _ := strings.Cut(v, "\t")
		if strings.HasPrefix(name, prefix) {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// configFlagsOf returns kubeconfig flags holding the values given to cmd's
// own kubeconfig flags (those of genericclioptions.ConfigFlags), for the
// completion of commands whose options are out of reach.
func configFlagsOf(cmd *cobra.Command) *genericclioptions.ConfigFlags {
	cf := genericclioptions.NewConfigFlags(false)
	fs := pflag.NewFlagSet("kubeconfig", pflag.ContinueOnError)
	cf.AddFlags(fs)
	fs.VisitAll(func(f *pflag.Flag) {
		src := cmd.Flags().Lookup(f.Name)
		if src == nil || !src.Changed {
			return
		}
		if sv, ok := src.Value.(pflag.SliceValue); ok {
			if dv, ok := f.Value.(pflag.SliceValue); ok {
				_ = dv.Replace(sv.GetSlice())
				return
			}
		}
		_ = f.Value.Set(src.Value.String())
	})
	return cf
}
