package controller

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

// RESTConfigGetter gives the client configuration. cli-runtime's
// *genericclioptions.ConfigFlags implements it: with --kubeconfig and
// --context it reads that kubeconfig; with neither and no
// $KUBECONFIG/~/.kube/config it falls back to the in-cluster config.
type RESTConfigGetter interface {
	ToRESTConfig() (*rest.Config, error)
}

// Client rate limits of the controller. The informers make one LIST and
// one WATCH per kind at start and after a disconnection; the rest is
// Events and Ingress status. client-go's defaults (QPS 5, burst 10) delay
// a re-list of eight informers plus a burst of status updates by seconds.
const (
	DefaultQPS   = 50
	DefaultBurst = 100
)

// NewRESTConfig returns the configuration for the cluster source: from
// getter when it is not nil (the --kubeconfig/--context flags), else the
// in-cluster one. It sets the user agent, protobuf for the built-in types
// (faster and smaller than JSON for large lists) and DefaultQPS/DefaultBurst
// where they are unset. The result is a copy the caller may change.
func NewRESTConfig(getter RESTConfigGetter, userAgent string) (*rest.Config, error) {
	var (
		cfg *rest.Config
		err error
	)
	if getter != nil {
		cfg, err = getter.ToRESTConfig()
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("kubernetes client config: %w", err)
	}
	return TuneRESTConfig(cfg, userAgent), nil
}

// TuneRESTConfig returns a copy of cfg with the controller's user agent,
// content types and rate limits (see NewRESTConfig). Fields already set
// are kept.
func TuneRESTConfig(cfg *rest.Config, userAgent string) *rest.Config {
	c := rest.CopyConfig(cfg)
	if userAgent != "" {
		c.UserAgent = userAgent
	}
	if c.QPS == 0 {
		c.QPS = DefaultQPS
	}
	if c.Burst == 0 {
		c.Burst = DefaultBurst
	}
	if c.ContentType == "" {
		c.ContentType = runtime.ContentTypeProtobuf
		c.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	}
	return c
}
