package maxmind

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/internal/geoip2test"
)

const goodKey = "s3cr3t-licence-key"

func TestParseEditions(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"GeoLite2-City,GeoLite2-ASN", []string{"GeoLite2-City", "GeoLite2-ASN"}, true},
		{"GeoIP2-ISP", []string{"GeoIP2-ISP"}, true},
		{"", nil, true},
		{"GeoLite2-City, GeoLite2-ASN", nil, false}, // as ingress-nginx: no spaces
		{"GeoLite2-City,TestCheck", nil, false},
		{"GeoLite2-City,GeoLite2-City", nil, false},
		{"../x", nil, false},
	} {
		got, err := ParseEditions(tc.in)
		if (err == nil) != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseEditions(%q) = %q, %v", tc.in, got, err)
		}
	}
}

// archive is a tar.gz as MaxMind serves it: <edition>_<date>/ with the
// database and its licence files.
func archive(t *testing.T, name string, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, f := range []struct {
		name string
		data []byte
	}{{"GeoLite2-City_20261201/LICENSE.txt", []byte("licence")}, {name, data}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func testDB(t *testing.T, edition string) []byte {
	t.Helper()
	db, err := geoip2test.Bytes(edition, geoip2test.Record{CIDR: "127.0.0.0/8", Data: geoip2test.City("NO", "Norway", "Oslo")})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestDownloadLicenseKey: MaxMind's URL form with the key; a wrong key's
// 401 is an error naming the edition and the status, never the key.
func TestDownloadLicenseKey(t *testing.T) {
	db := testDB(t, "GeoLite2-City")
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		queries = append(queries, r.URL.Path+"?"+r.URL.RawQuery)
		q := r.URL.Query()
		if q.Get("license_key") != goodKey {
			http.Error(w, "Invalid license key", http.StatusUnauthorized)
			return
		}
		if q.Get("suffix") != "tar.gz" || q.Get("edition_id") != "GeoLite2-City" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(archive(t, "GeoLite2-City_20261201/GeoLite2-City.mmdb", db))
	}))
	defer srv.Close()
	ctx := context.Background()

	dir := t.TempDir()
	d := Downloader{Dir: dir, LicenseKey: goodKey, URL: srv.URL + "/app/geoip_download", Client: srv.Client()}
	if err := d.Download(ctx, []string{"GeoLite2-City"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(File(dir, "GeoLite2-City")); !bytes.Equal(got, db) {
		t.Fatalf("the database written differs (%d bytes, want %d)", len(got), len(db))
	}
	if want := "/app/geoip_download?edition_id=GeoLite2-City&license_key=" + goodKey + "&suffix=tar.gz"; queries[0] != want {
		t.Errorf("request %s, want %s", queries[0], want)
	}
	if got := Found(dir, []string{"GeoLite2-ASN", "GeoLite2-City"}); !reflect.DeepEqual(got, []string{"GeoLite2-City"}) {
		t.Errorf("Found = %q", got)
	}

	const badKey = "wrong-key-0123"
	d.LicenseKey = badKey
	err := d.Download(ctx, []string{"GeoLite2-City", "GeoLite2-ASN"})
	var de *Error
	if err == nil || !errors.As(err, &de) || de.Status != http.StatusUnauthorized {
		t.Fatalf("Download with a bad key: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"GeoIP2 database GeoLite2-City: ", "GeoIP2 database GeoLite2-ASN: ", "HTTP 401 Unauthorized", "licence key is wrong", "licence key not shown"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, badKey) || strings.Contains(msg, "license_key") {
		t.Errorf("the error shows the key: %q", msg)
	}
	// The database of the earlier download is still there, whole.
	if got, _ := os.ReadFile(File(dir, "GeoLite2-City")); !bytes.Equal(got, db) {
		t.Error("a failed download changed the database in place")
	}
}

// TestDownloadMirror: <mirror>/<edition>.tar.gz, no key sent; archives
// without the database, or with something else under its name, are errors
// that leave no file behind.
func TestDownloadMirror(t *testing.T) {
	city, asn := testDB(t, "GeoLite2-City"), testDB(t, "GeoLite2-ASN")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RawQuery != "" {
			t.Errorf("query %q sent to the mirror", r.URL.RawQuery)
		}
		switch r.URL.Path {
		case "/db/GeoLite2-City.tar.gz":
			_, _ = w.Write(archive(t, "GeoLite2-City_1/GeoLite2-City.mmdb", city))
		case "/db/GeoLite2-ASN.tar.gz":
			_, _ = w.Write(archive(t, "GeoLite2-ASN.mmdb", asn))
		case "/db/GeoLite2-Country.tar.gz":
			_, _ = w.Write(archive(t, "x/GeoLite2-City.mmdb", city)) // the wrong database
		case "/db/GeoIP2-City.tar.gz":
			_, _ = w.Write(archive(t, "GeoIP2-City.mmdb", []byte("<html>not a database</html>")))
		case "/db/GeoIP2-ISP.tar.gz":
			_, _ = w.Write([]byte("not gzip"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	d := Downloader{Dir: dir, Mirror: srv.URL + "/db/", LicenseKey: goodKey, Client: srv.Client()}
	if err := d.Download(context.Background(), []string{"GeoLite2-City", "GeoLite2-ASN"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(File(dir, "GeoLite2-ASN")); !bytes.Equal(got, asn) {
		t.Error("GeoLite2-ASN differs")
	}
	for edition, want := range map[string]string{
		"GeoLite2-Country": "the archive holds no GeoLite2-Country.mmdb",
		"GeoIP2-City":      "GeoIP2-City.mmdb is not a MaxMind database",
		"GeoIP2-ISP":       "not a tar.gz",
		"GeoIP2-ASN":       "HTTP 404 Not Found",
	} {
		err := d.Download(context.Background(), []string{edition})
		if err == nil || !strings.Contains(err.Error(), "GeoIP2 database "+edition+": ") || !strings.Contains(err.Error(), want) ||
			!strings.Contains(err.Error(), srv.URL+"/db/"+edition+".tar.gz") {
			t.Errorf("%s: %v, want %q", edition, err, want)
		}
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"GeoLite2-ASN.mmdb", "GeoLite2-City.mmdb"}; !reflect.DeepEqual(names, want) {
		t.Errorf("files %q, want %q (no temporary file left)", names, want)
	}
}

// TestDownloadRetries: a 503 is tried again after the delay, up to the
// attempts; a 401 is not; without a delay there is one attempt, as
// ingress-nginx's --maxmind-retries-timeout 0s.
func TestDownloadRetries(t *testing.T) {
	db := testDB(t, "GeoLite2-City")
	var n atomic.Int32
	failFirst := int32(2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/unauthorized/GeoLite2-City.tar.gz" {
			n.Add(1)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if n.Add(1) <= failFirst {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write(archive(t, "GeoLite2-City.mmdb", db))
	}))
	defer srv.Close()
	var retried []int
	d := Downloader{Dir: t.TempDir(), Mirror: srv.URL, Attempts: 3, RetryDelay: time.Millisecond, Client: srv.Client(),
		OnRetry: func(_ string, attempt int, _ error) { retried = append(retried, attempt) }}
	if err := d.Download(context.Background(), []string{"GeoLite2-City"}); err != nil || n.Load() != 3 || !reflect.DeepEqual(retried, []int{1, 2}) {
		t.Fatalf("with retries: %v after %d requests, retried %v", err, n.Load(), retried)
	}
	n.Store(0)
	d.RetryDelay = 0
	if err := d.Download(context.Background(), []string{"GeoLite2-City"}); err == nil || !strings.Contains(err.Error(), "HTTP 503") || n.Load() != 1 {
		t.Fatalf("without a delay: %v after %d requests", err, n.Load())
	}
	n.Store(0)
	d.RetryDelay, d.Mirror = time.Millisecond, srv.URL+"/unauthorized"
	if err := d.Download(context.Background(), []string{"GeoLite2-City"}); err == nil || !strings.Contains(err.Error(), "HTTP 401") || n.Load() != 1 {
		t.Fatalf("401: %v after %d requests", err, n.Load())
	}
}

// TestDownloadRefusedHidesKey: a connection error (nothing listens) names
// the edition and never the key, which net/http's error would quote.
func TestDownloadRefusedHidesKey(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	d := Downloader{Dir: t.TempDir(), LicenseKey: goodKey, URL: "http://" + addr + "/app/geoip_download", Attempts: 2, RetryDelay: time.Millisecond}
	err = d.Download(context.Background(), []string{"GeoLite2-ASN"})
	if err == nil || strings.Contains(err.Error(), goodKey) || !strings.Contains(err.Error(), "GeoIP2 database GeoLite2-ASN: GET http://"+addr) ||
		!strings.Contains(err.Error(), "refused") {
		t.Fatalf("Download: %v", err)
	}
}
