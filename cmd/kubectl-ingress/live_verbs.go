package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// clusterFlags are the flags of the verbs that read manifests with -f or,
// without -f, the cluster (lint, ingresses): kubectl's kubeconfig flags
// and -A. Their -n is the manifests' -n (ManifestFlags): for files the
// namespace of objects that name none, for the cluster the namespace read;
// not given, the cluster's is the kubeconfig context's, as kubectl's.
type clusterFlags struct {
	config        *genericclioptions.ConfigFlags
	allNamespaces bool
}

func newClusterFlags() *clusterFlags {
	cf := genericclioptions.NewConfigFlags(true)
	cf.Namespace = nil // ManifestFlags registers -n
	return &clusterFlags{config: cf}
}

// AddFlags registers the kubeconfig flags and -A.
func (c *clusterFlags) AddFlags(fs *pflag.FlagSet) {
	c.config.AddFlags(fs)
	fs.BoolVarP(&c.allNamespaces, "all-namespaces", "A", false, "Without -f: read the Ingresses of every namespace (default: -n, else the kubeconfig context's namespace)")
}

// live tells whether the command reads the cluster: no -f given.
func (c *clusterFlags) live(m ManifestFlags) bool { return len(m.Filenames) == 0 }

// namespace is the namespace the cluster is read in: -n when given, else
// the context's, else "default".
func (c *clusterFlags) namespace(cmd *cobra.Command, m ManifestFlags) string {
	if cmd.Flags().Changed("namespace") {
		return m.Namespace
	}
	if ns, _, err := c.config.ToRawKubeConfigLoader().Namespace(); err == nil && ns != "" {
		return ns
	}
	return manifest.DefaultNamespace
}

// read lists what the controller would see of the namespace ns (with -A:
// of every namespace), with the controller's ConfigMaps and default
// certificate from wherever they live, as diff -f reads the cluster.
func (c *clusterFlags) read(ctx context.Context, ns string, f RenderFlags) (*manifest.Result, error) {
	var namespaces []string
	if !c.allNamespaces {
		namespaces = []string{ns}
	}
	s, source, err := readClusterObjects(ctx, c.config, namespaces, f)
	if err != nil {
		return nil, err
	}
	return &manifest.Result{Snapshot: s, Source: source}, nil
}

// readClusterObjects lists the objects of namespaces (nil: every
// namespace) and the controller's objects outside them, and says what it
// read ("the cluster, namespace shop, ConfigMap ingress-nginx/…").
func readClusterObjects(ctx context.Context, cf *genericclioptions.ConfigFlags, namespaces []string, f RenderFlags) (render.Snapshot, string, error) {
	if err := requireKubeconfig(cf); err != nil {
		return render.Snapshot{}, "", err
	}
	cfg, err := cf.ToRESTConfig()
	if err != nil {
		return render.Snapshot{}, "", fmt.Errorf("cluster configuration: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return render.Snapshot{}, "", fmt.Errorf("cluster client: %w", err)
	}
	if namespaces == nil {
		s, err := listSnapshot(ctx, cs, "")
		return s, "the cluster, every namespace", err
	}
	s, err := listNamespaces(ctx, cs, namespaces)
	if err != nil {
		return s, "", err
	}
	extra, err := getControllerObjects(ctx, cs, namespaces, f)
	if err != nil {
		return s, "", err
	}
	var source strings.Builder
	source.WriteString("the cluster, " + plural(len(namespaces), "namespace ", "namespaces ") + strings.Join(namespaces, ", "))
	for _, cm := range extra.ConfigMaps {
		s.ConfigMaps = append(s.ConfigMaps, cm)
		source.WriteString(", ConfigMap " + cm.Namespace + "/" + cm.Name)
	}
	for _, sec := range extra.Secrets {
		s.Secrets = append(s.Secrets, sec)
		source.WriteString(", Secret " + sec.Namespace + "/" + sec.Name)
	}
	return s, source.String(), nil
}

// readBuild reads the manifests of -f, or the cluster without -f, and
// builds them.
func (o *RenderOptions) readBuild(ctx context.Context, cmd *cobra.Command, c *clusterFlags) (*manifest.Result, *rendered, error) {
	if !c.live(o.Manifests) {
		if c.allNamespaces {
			return nil, nil, &usageError{err: fmt.Errorf("-A reads the cluster: give it without -f")}
		}
		return o.validateReadBuild()
	}
	if err := o.Render.Validate(); err != nil {
		return nil, nil, err
	}
	stop := startProgress(o.ErrOut, "reading the cluster and rendering")
	defer stop()
	res, err := c.read(ctx, c.namespace(cmd, o.Manifests), o.Render)
	if errors.Is(err, errNoKubeconfig) {
		err = fmt.Errorf("%s reads the manifests of -f FILENAME, or without -f a cluster: %w", cmd.Name(), err)
	}
	if err != nil {
		return nil, nil, err
	}
	r, err := buildBundle(res.Snapshot, o.Render)
	if err != nil {
		return nil, nil, err
	}
	return res, r, nil
}
