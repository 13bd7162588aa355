package main

import (
	"errors"
	"fmt"
	"os"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// errNoKubeconfig is the error of a command that needs a cluster when
// nothing says which one.
var errNoKubeconfig = errors.New("no kubeconfig: nothing says which cluster to talk to (--kubeconfig, $KUBECONFIG, ~/.kube/config, --server, or running in a pod); " +
	"client-go would try http://localhost:8080, where the local simulator may be listening")

// requireKubeconfig fails when no cluster is configured: no --server, no
// in-cluster environment, and a kubeconfig without clusters or without a
// context to use. client-go's fallback in that case is
// http://localhost:8080, never what was meant.
func requireKubeconfig(cf *genericclioptions.ConfigFlags) error {
	if cf.APIServer != nil && *cf.APIServer != "" {
		return nil
	}
	if os.Getenv("KUBERNETES_SERVICE_HOST") != "" && os.Getenv("KUBERNETES_SERVICE_PORT") != "" {
		return nil // the in-cluster configuration
	}
	raw, err := cf.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	if len(raw.Clusters) == 0 {
		return errNoKubeconfig
	}
	context := raw.CurrentContext
	if cf.Context != nil && *cf.Context != "" {
		context = *cf.Context
	}
	if context == "" && (cf.ClusterName == nil || *cf.ClusterName == "") {
		return fmt.Errorf("the kubeconfig has no current context: give --context (one of %d)", len(raw.Contexts))
	}
	return nil
}
