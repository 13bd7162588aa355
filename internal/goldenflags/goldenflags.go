// Package goldenflags reads the render flags of a render golden case
// (testdata/render/<case>/flags.txt) into render.Options, for the tests
// that run the goldens' inputs through something other than the render
// command (the admission subsets, render.Incremental).
package goldenflags

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// Options returns render.DefaultOptions with the flags of the case in dir
// applied (none without a flags.txt). The GeoIP2 flags are read and left
// at their defaults: the databases make ConfigMap Problems only, never an
// Ingress's. ConfigMapRequired stays false. A flag it does not know fails
// the test: map it here.
func Options(t testing.TB, dir string) render.Options {
	t.Helper()
	o := render.DefaultOptions()
	file := filepath.Join(dir, "flags.txt")
	raw, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return o
	}
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(raw))
	for i := 0; i < len(f); i++ {
		next := func() string {
			i++
			if i >= len(f) {
				t.Fatalf("%s: %s needs a value", file, f[i-1])
			}
			return f[i]
		}
		switch f[i] {
		case "--configmap":
			o.ConfigMap = next()
		case "--default-ssl-certificate":
			o.DefaultSSLCertificate = next()
		case "--default-backend-service":
			o.DefaultBackendService = next()
		case "--ingress-class":
			o.IngressClass = next()
		case "--controller-class":
			o.ControllerClass = next()
		case "--watch-ingress-without-class":
			o.WatchIngressWithoutClass = true
		case "--tcp-services-configmap":
			o.TCPServicesConfigMap = next()
		case "--udp-services-configmap":
			o.UDPServicesConfigMap = next()
		case "--enable-ssl-passthrough":
			o.EnableSSLPassthrough = true
		case "--maxmind-db-dir", "--maxmind-edition-ids":
			next()
		case "--allow-cross-namespace-host-sharing":
			o.AllowCrossNamespaceHostSharing = true
		default:
			t.Fatalf("%s: flag %s is unknown to goldenflags: map it to render.Options there (and check that pkg/admission's subset still covers what it changes)", file, f[i])
		}
	}
	return o
}
