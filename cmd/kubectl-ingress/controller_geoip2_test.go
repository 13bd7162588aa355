package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-ingress/kubectl-ingress/internal/geoip2test"
	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
)

// TestControllerCommandGeoIP2Mirror: the whole command: at start the
// controller downloads GeoLite2-City and GeoLite2-ASN from a loopback
// mirror into --maxmind-db-dir, the ConfigMap's use-geoip2 writes their
// blocks, and a loopback client's request reaches the backend with the
// country and ASN of 127.0.0.0/8 in the ConfigMap's proxy-set-headers.
func TestControllerCommandGeoIP2Mirror(t *testing.T) {
	nginxtest.Require(t)
	tgz := func(edition string, records ...geoip2test.Record) []byte {
		db, err := geoip2test.Bytes(edition, records...)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		tw := tar.NewWriter(zw)
		_ = tw.WriteHeader(&tar.Header{Name: edition + "_20261201/" + edition + ".mmdb", Mode: 0o644, Size: int64(len(db)), Typeflag: tar.TypeReg})
		_, _ = tw.Write(db)
		_ = tw.Close()
		_ = zw.Close()
		return b.Bytes()
	}
	archives := map[string][]byte{
		"/geoip/GeoLite2-City.tar.gz": tgz("GeoLite2-City", geoip2test.Record{CIDR: "127.0.0.0/8", Data: geoip2test.City("NO", "Norway", "Oslo")}),
		"/geoip/GeoLite2-ASN.tar.gz":  tgz("GeoLite2-ASN", geoip2test.Record{CIDR: "127.0.0.0/8", Data: geoip2test.ASN(64500, "Loopback Net")}),
	}
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b, ok := archives[r.URL.Path]; ok {
			_, _ = w.Write(b)
			return
		}
		http.NotFound(w, r)
	}))
	defer mirror.Close()
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"country": r.Header.Get("X-Geo-Country"), "asn": r.Header.Get("X-Geo-Asn")})
	}))
	defer backend.Close()
	backendPort := backend.Listener.Addr().(*net.TCPAddr).Port

	ports := freeTCPPorts(t, 4)
	dir, dbDir := t.TempDir(), filepath.Join(t.TempDir(), "geoip")
	manifests := `apiVersion: v1
kind: ConfigMap
metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
data: {use-geoip2: "true", proxy-set-headers: ingress-nginx/geo}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: geo, namespace: ingress-nginx}
data: {X-Geo-Country: "$geoip2_city_country_code", X-Geo-Asn: "$geoip2_asn"}
---
` + demoWebManifests("geo.example.com", backendPort)
	if err := os.WriteFile(filepath.Join(dir, "web.yaml"), []byte(manifests), 0o644); err != nil {
		t.Fatal(err)
	}
	const key = "licence-key-not-for-a-mirror"
	errOut := &lockedWriter{}
	cmd := NewCmdRoot(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: errOut})
	cmd.SetArgs([]string{"controller", "--from-files", dir, "--worker-processes", "1",
		"--http-port", fmt.Sprint(ports[0]), "--https-port", fmt.Sprint(ports[1]),
		"--status-address", fmt.Sprintf("127.0.0.1:%d", ports[2]), "--health-addr", fmt.Sprintf("127.0.0.1:%d", ports[3]),
		"--maxmind-mirror", mirror.URL + "/geoip", "--maxmind-license-key", key, "--maxmind-db-dir", dbDir})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- runContext(ctx, cmd) }()

	var body string
	deadline := time.Now().Add(20 * time.Second)
	for {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/", ports[0]), nil)
		req.Host = "geo.example.com"
		if resp, err := (&http.Client{Timeout: 2 * time.Second}).Do(req); err == nil {
			var b bytes.Buffer
			_, _ = b.ReadFrom(resp.Body)
			resp.Body.Close()
			body = b.String()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("not served: %q\n%s", body, errOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if want := `{"asn":"64500","country":"NO"}`; strings.TrimSpace(body) != want {
		t.Errorf("the backend got %s, want %s\n%s", body, want, errOut.String())
	}
	cancel()
	select {
	case <-done:
	case <-time.After(40 * time.Second):
		t.Fatal("the command did not stop")
	}
	logs := errOut.String()
	if !strings.Contains(logs, "Downloaded the MaxMind GeoIP2 databases") || strings.Contains(logs, key) {
		t.Errorf("log:\n%s", logs)
	}
	for _, e := range []string{"GeoLite2-City", "GeoLite2-ASN"} {
		if _, err := os.Stat(filepath.Join(dbDir, e+".mmdb")); err != nil {
			t.Error(err)
		}
	}
}
