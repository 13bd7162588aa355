package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// render writes stream.json only when the flags ask for stream servers,
// and refuses passthrough ports that collide.
func TestRenderStreamFlags(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runCmd(t, "", "render", "-f", "../../testdata/render/stream-services/input.yaml", "--output-dir", dir,
		"--tcp-services-configmap", "ingress-nginx/tcp-services", "--udp-services-configmap", "ingress-nginx/udp-services")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "stream.json"))
	if err != nil || !strings.Contains(string(data), `"tcp/5432"`) {
		t.Errorf("stream.json: %q, %v", data, err)
	}

	plain := t.TempDir()
	if code, _, errOut := runCmd(t, "", "render", "-f", "../../testdata/render/stream-services/input.yaml", "--output-dir", plain); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(plain, "stream.json")); !os.IsNotExist(err) {
		t.Errorf("stream.json without the flags: %v", err)
	}
	// Rendered again into dir without the flags: the stream.json of the
	// first render goes.
	if code, _, errOut := runCmd(t, "", "render", "-f", "../../testdata/render/stream-services/input.yaml", "--output-dir", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "stream.json")); !os.IsNotExist(err) {
		t.Errorf("stream.json of the earlier render left in the output directory: %v", err)
	}

	code, _, errOut = runCmd(t, "", "render", "-f", "../../examples", "--enable-ssl-passthrough", "--ssl-passthrough-proxy-port", "443")
	if code == 0 || !strings.Contains(errOut, "--ssl-passthrough-proxy-port") {
		t.Errorf("colliding passthrough port: exit %d, %s", code, errOut)
	}
	code, _, errOut = runCmd(t, "", "render", "-f", "../../examples", "--tcp-services-configmap", "tcp-services")
	if code == 0 || !strings.Contains(errOut, "--tcp-services-configmap must be namespace/name") {
		t.Errorf("services ConfigMap without namespace: exit %d, %s", code, errOut)
	}
}
