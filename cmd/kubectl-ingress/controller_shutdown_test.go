package main

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
)

func TestShutdownFlagErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--shutdown-grace-period", "-1"}, "--shutdown-grace-period must not be negative"},
		{[]string{"--post-shutdown-grace-period", "-2"}, "--post-shutdown-grace-period must not be negative"},
		{[]string{"--nginx-quit-timeout", "0s"}, "--nginx-quit-timeout must be positive"},
		// ingress-nginx's flags are whole seconds.
		{[]string{"--shutdown-grace-period", "5s"}, `invalid argument "5s"`},
	}
	for _, tc := range cases {
		code, _, errOut := runCmd(t, "", append([]string{"controller", "--from-files", dir}, tc.args...)...)
		if code != exitFailure || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 3 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestShutdownFlagsSetConfig: the flags, given as an ingress-nginx
// manifest gives them, reach the controller's Config.
func TestShutdownFlagsSetConfig(t *testing.T) {
	o := NewControllerOptions(genericiooptions.IOStreams{})
	fs := pflag.NewFlagSet("controller", pflag.ContinueOnError)
	o.Shutdown.AddFlags(fs)
	if err := fs.Parse([]string{"--shutdown-grace-period=30", "--post-shutdown-grace-period=10", "--nginx-quit-timeout=2m", "--profiling"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Shutdown.Validate(); err != nil {
		t.Fatal(err)
	}
	var cfg controller.Config
	o.Shutdown.apply(&cfg)
	if cfg.ShutdownGracePeriod != 30*time.Second || cfg.PostShutdownGracePeriod != 10*time.Second || cfg.StopTimeout != 2*time.Minute || !cfg.Profiling {
		t.Errorf("config %v %v %v %v", cfg.ShutdownGracePeriod, cfg.PostShutdownGracePeriod, cfg.StopTimeout, cfg.Profiling)
	}
	def := NewShutdownFlags()
	if def.GracePeriod != 0 || def.PostGracePeriod != 0 || def.QuitTimeout != controller.DefaultStopTimeout || def.Profiling {
		t.Errorf("defaults %+v", def)
	}
}
