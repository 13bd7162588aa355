package e2e

import (
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	"crypto/tls"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// TestDefaultSSLCertificateThroughLua: --default-ssl-certificate is served
// for unknown SNI names and for handshakes without SNI, through Lua, and a
// rotation of its Secret takes effect without a reload.
func TestDefaultSSLCertificateThroughLua(t *testing.T) {
	web := startBackend(t, "web", 0)
	def, defCrt := tlsSecretYAML(t, "default-tls", "default.example.com")
	opts := render.DefaultOptions()
	opts.DefaultSSLCertificate = "e2e/default-tls"
	rest := serviceOf("web", web) + ingressOf("web", "web.example.com", "web", "2026-01-01T00:00:00Z", nil)
	n := startNginxWith(t, def+rest, nginxOptions{build: &opts})
	if got := n.servedCertificate(t, "unknown.example.com"); !sameCert(got.Raw, defCrt) {
		t.Errorf("unknown SNI served %q, want the --default-ssl-certificate", got.Subject.CommonName)
	}
	if got := servedWithoutSNI(t, n.httpsPort); !sameCert(got, defCrt) {
		t.Error("a handshake without SNI did not get the --default-ssl-certificate")
	}

	before, err := n.inst.WorkerPids()
	if err != nil {
		t.Fatal(err)
	}
	rotated, rotatedCrt := tlsSecretYAML(t, "default-tls", "default.example.com")
	cfg, _ := buildConfigWith(t, rotated+rest, opts)
	_, servers := luaapi.FromModel(cfg)
	if err := n.lua.PostServers(t.Context(), servers); err != nil {
		t.Fatal(err)
	}
	if got := n.servedCertificate(t, "unknown.example.com"); !sameCert(got.Raw, rotatedCrt) {
		t.Error("the rotated default certificate is not served")
	}
	after, err := n.inst.WorkerPids()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(before, after) {
		t.Errorf("worker pids changed from %v to %v: a reload happened", before, after)
	}
}

func servedWithoutSNI(t *testing.T, port int) []byte {
	t.Helper()
	d := &net.Dialer{Timeout: 5 * time.Second}
	// An IP address as ServerName makes crypto/tls send no SNI.
	conn, err := tls.DialWithDialer(d, "tcp", "127.0.0.1:"+strconv.Itoa(port), &tls.Config{ServerName: "127.0.0.1", InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].Raw
}
