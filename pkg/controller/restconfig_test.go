package controller_test

import (
	"errors"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
)

type restGetter struct {
	cfg *rest.Config
	err error
}

func (g restGetter) ToRESTConfig() (*rest.Config, error) { return g.cfg, g.err }

func TestNewRESTConfig(t *testing.T) {
	in := &rest.Config{Host: "https://example.com", QPS: 7}
	cfg, err := controller.NewRESTConfig(restGetter{cfg: in}, "kubectl-ingress/test")
	if err != nil {
		t.Fatal(err)
	}
	if cfg == in {
		t.Error("NewRESTConfig returned the getter's config, want a copy")
	}
	if cfg.QPS != 7 || cfg.Burst != controller.DefaultBurst {
		t.Errorf("QPS %v burst %d: want the set QPS kept and the default burst", cfg.QPS, cfg.Burst)
	}
	if cfg.UserAgent != "kubectl-ingress/test" || cfg.ContentType != "application/vnd.kubernetes.protobuf" {
		t.Errorf("user agent %q content type %q", cfg.UserAgent, cfg.ContentType)
	}
	if in.Burst != 0 || in.UserAgent != "" {
		t.Error("the getter's config was modified")
	}

	if _, err := controller.NewRESTConfig(restGetter{err: errors.New("boom")}, ""); err == nil {
		t.Error("getter error: want an error")
	}
	// ConfigFlags satisfies the getter (the cmd registers its flags).
	var _ controller.RESTConfigGetter = genericclioptions.NewConfigFlags(true)
}
