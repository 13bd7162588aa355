// Package envtesting starts a real control plane (kube-apiserver and etcd)
// for tests, through controller-runtime's envtest, from the binaries that
// `make envtest` builds into bin/envtest.
//
// It is a test helper: only _test.go files import it, never product code.
// It imports controller-runtime's envtest and client-go's rest, nothing of
// this repository.
package envtesting

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ServiceClusterIPRange is the API server's --service-cluster-ip-range: a /12
// has room for about a million Services (envtest's default /24 runs out at
// about 250).
const ServiceClusterIPRange = "10.96.0.0/12"

// startTimeout bounds the start of etcd and of kube-apiserver each; envtest's
// 20 s default is tight on a busy 2-core machine.
// KUBEBUILDER_CONTROLPLANE_START_TIMEOUT still overrides it.
const startTimeout = 2 * time.Minute

// Start starts etcd and kube-apiserver from bin/envtest, registers their stop
// with t.Cleanup, and returns an admin config for the API server. It fails
// the test, with how to build them, when the binaries are missing: tests
// that need an API server must not skip silently.
//
// Each call starts a control plane of its own (a few seconds); a package
// with many such tests can share one from TestMain.
func Start(t testing.TB) *rest.Config {
	t.Helper()
	dir, err := AssetsDir()
	if err != nil {
		t.Fatal(err)
	}
	if missing := missingBinaries(dir); len(missing) > 0 {
		t.Fatalf("envtesting: %s missing from %s: run `make envtest` (it builds them from the Go module proxy, several minutes the first time)",
			strings.Join(missing, " and "), dir)
	}

	env := newEnvironment(dir)
	cfg, err := env.Start()
	if err != nil {
		// Start leaves the control plane running when a later step fails
		// (waiting for the default namespace, say).
		_ = env.Stop()
		t.Fatalf("envtesting: starting the control plane from %s: %v (KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true shows its logs)", dir, err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("envtesting: stopping the control plane: %v", err)
		}
	})
	return cfg
}

// newEnvironment configures envtest to run the binaries in dir, whatever
// KUBEBUILDER_ASSETS says, and never an existing cluster.
func newEnvironment(dir string) *envtest.Environment {
	useExisting := false
	env := &envtest.Environment{
		BinaryAssetsDirectory: dir,
		UseExistingCluster:    &useExisting,
	}
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") == "" {
		env.ControlPlaneStartTimeout = startTimeout
	}
	apiServer := env.ControlPlane.GetAPIServer()
	apiServer.Path = filepath.Join(dir, "kube-apiserver")
	apiServer.Configure().Set("service-cluster-ip-range", ServiceClusterIPRange)
	env.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(dir, "etcd")}
	env.ControlPlane.KubectlPath = filepath.Join(dir, "kubectl")
	return env
}
