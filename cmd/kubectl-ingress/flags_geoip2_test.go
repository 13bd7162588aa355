package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/kubectl-ingress/kubectl-ingress/internal/geoip2test"
)

// TestGeoIP2Flags: --maxmind-edition-ids is checked as ingress-nginx
// checks it, and the databases found in --maxmind-db-dir reach render and
// the writer.
func TestGeoIP2Flags(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "GeoLite2-ASN.mmdb"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		found []string
		err   string
	}{
		{args: []string{"--maxmind-db-dir", dir}, found: []string{"GeoLite2-ASN"}},
		{args: []string{"--maxmind-db-dir", dir, "--maxmind-edition-ids", "GeoIP2-City,GeoLite2-ASN"}, found: []string{"GeoLite2-ASN"}},
		{args: []string{"--maxmind-edition-ids", "GeoLite2-City, TestCheck"}, err: `--maxmind-edition-ids: unknown MaxMind GeoIP2 edition " TestCheck"`},
		{args: []string{"--maxmind-db-dir", ""}, err: "--maxmind-db-dir must not be empty"},
	} {
		f := NewRenderFlags()
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		f.AddFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		err := f.Validate()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if got := f.BuildOptions().GeoIP2; got.Dir != dir || !reflect.DeepEqual(got.Found, tc.found) {
			t.Errorf("%v: render options %+v", tc.args, got)
		}
		if got := f.ConfOptions().GeoIP2Dir; got != dir {
			t.Errorf("%v: GeoIP2Dir %q", tc.args, got)
		}
	}
}

// TestMaxMindDownloadAtStart: the controller's download from a mirror
// puts the databases where render finds them; a failed one is logged with
// the edition and the status, never the licence key, and is not fatal.
func TestMaxMindDownloadAtStart(t *testing.T) {
	db, err := geoip2test.Bytes("GeoLite2-City", geoip2test.Record{CIDR: "127.0.0.0/8", Data: geoip2test.City("NO", "Norway", "Oslo")})
	if err != nil {
		t.Fatal(err)
	}
	var tgz bytes.Buffer
	zw := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(zw)
	_ = tw.WriteHeader(&tar.Header{Name: "GeoLite2-City_20261201/GeoLite2-City.mmdb", Mode: 0o644, Size: int64(len(db)), Typeflag: tar.TypeReg})
	_, _ = tw.Write(db)
	_ = tw.Close()
	_ = zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/GeoLite2-City.tar.gz" {
			_, _ = w.Write(tgz.Bytes())
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()

	const key = "licence-key-never-logged"
	g := NewGeoIP2Flags()
	g.DBDir = t.TempDir()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	ctx := klog.NewContext(context.Background(), textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(&logs))))
	m := MaxMindDownloadFlags{LicenseKey: key, Mirror: srv.URL, RetriesCount: 1}
	m.download(ctx, g)
	if got := g.databases().Found; !reflect.DeepEqual(got, []string{"GeoLite2-City"}) {
		t.Errorf("found %q after the download", got)
	}
	out := logs.String()
	for _, want := range []string{"Downloading the MaxMind GeoIP2 databases", "GeoIP2 database GeoLite2-ASN: GET " + srv.URL + "/GeoLite2-ASN.tar.gz: HTTP 401 Unauthorized"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, key) {
		t.Errorf("the licence key is logged:\n%s", out)
	}
}
