// Package maxmind fetches the MaxMind GeoIP2 databases that the ConfigMap's
// use-geoip2 reads, as ingress-nginx's controller does at its start
// (--maxmind-license-key, --maxmind-edition-ids, --maxmind-mirror,
// --maxmind-retries-count, --maxmind-retries-timeout): each edition's
// tar.gz from MaxMind's download URL, or from <mirror>/<edition>.tar.gz,
// whose <edition>.mmdb is written to <dir>/<edition>.mmdb atomically
// (a temporary file in the directory, renamed). The licence key never
// appears in an error.
//
// It does I/O (HTTP, files) and no logging; the controller command calls
// it and logs what it returns. It imports only the standard library and
// pkg/model.
package maxmind

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// DownloadURL is MaxMind's download endpoint, as ingress-nginx calls it:
// ?license_key=KEY&edition_id=EDITION&suffix=tar.gz.
const DownloadURL = "https://download.maxmind.com/app/geoip_download"

// maxDatabaseSize bounds one .mmdb (MaxMind's largest are a few hundred MB).
const maxDatabaseSize = 2 << 30

// ParseEditions reads --maxmind-edition-ids: a comma-separated list of the
// editions ingress-nginx allows (model.GeoIP2Editions), each once, in the
// order given. Spaces around a name are refused, as ingress-nginx does.
func ParseEditions(v string) ([]string, error) {
	if v == "" {
		return nil, nil
	}
	known := model.GeoIP2Editions()
	var out []string
	for _, e := range strings.Split(v, ",") {
		if !slices.Contains(known, e) {
			return nil, fmt.Errorf("unknown MaxMind GeoIP2 edition %q (known: %s)", e, strings.Join(known, ", "))
		}
		if slices.Contains(out, e) {
			return nil, fmt.Errorf("MaxMind GeoIP2 edition %q is named twice", e)
		}
		out = append(out, e)
	}
	return out, nil
}

// File is where an edition's database is kept in dir.
func File(dir, edition string) string { return filepath.Join(dir, edition+".mmdb") }

// Found returns the editions whose database is a regular file in dir, in
// the order of editions.
func Found(dir string, editions []string) []string {
	var out []string
	for _, e := range editions {
		if fi, err := os.Stat(File(dir, e)); err == nil && fi.Mode().IsRegular() {
			out = append(out, e)
		}
	}
	return out
}

// Downloader fetches editions into Dir.
type Downloader struct {
	// Dir receives <edition>.mmdb; it is created if missing.
	Dir string
	// LicenseKey is MaxMind's licence key; Mirror, when set, is a base URL
	// serving <edition>.tar.gz instead (no key is sent to it).
	LicenseKey string
	Mirror     string
	// Attempts is the number of tries of an edition (at least 1); a try
	// is repeated only after a network error or an HTTP 5xx or 429, and
	// only when RetryDelay is positive, waiting RetryDelay, then 1.5 times
	// longer each time (ingress-nginx's --maxmind-retries-timeout: the
	// delay between the first and second attempt).
	Attempts   int
	RetryDelay time.Duration
	// Client makes the requests (nil: a client with a 10 minute timeout).
	Client *http.Client
	// URL replaces DownloadURL (tests point it at a loopback server).
	URL string
	// OnRetry, when set, is told of each failed try that will be retried.
	OnRetry func(edition string, attempt int, err error)
}

// Error is the failure of one edition. Its text names the edition, the
// server (without the licence key) and the HTTP status when there was one.
type Error struct {
	Edition string
	// Status is the HTTP status code (0: no answer, or a bad archive).
	Status int
	msg    string
	err    error
	key    string
}

func (e *Error) Error() string {
	s := "GeoIP2 database " + e.Edition + ": " + e.msg
	if e.key != "" {
		s = strings.ReplaceAll(s, e.key, "REDACTED")
	}
	return s
}

func (e *Error) Unwrap() error { return e.err }

// Download fetches every edition, one after the other; the error joins
// the failure of each edition that failed (the others are in place).
func (d Downloader) Download(ctx context.Context, editions []string) error {
	if err := os.MkdirAll(d.Dir, 0o755); err != nil {
		return fmt.Errorf("GeoIP2 database directory: %w", err)
	}
	var errs []error
	for _, e := range editions {
		if err := d.downloadRetrying(ctx, e); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (d Downloader) downloadRetrying(ctx context.Context, edition string) error {
	attempts := max(d.Attempts, 1)
	if d.RetryDelay <= 0 {
		attempts = 1
	}
	delay := d.RetryDelay
	for attempt := 1; ; attempt++ {
		err := d.downloadOnce(ctx, edition)
		var de *Error
		retry := errors.As(err, &de) && (de.Status == 0 && de.err != nil || de.Status >= 500 || de.Status == http.StatusTooManyRequests)
		if err == nil || !retry || attempt >= attempts || ctx.Err() != nil {
			return err
		}
		if d.OnRetry != nil {
			d.OnRetry(edition, attempt, err)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		delay = delay * 3 / 2
	}
}

// source returns the URL to fetch and the text that names it in errors.
func (d Downloader) source(edition string) (string, string) {
	if d.Mirror != "" {
		u := strings.TrimSuffix(d.Mirror, "/") + "/" + url.PathEscape(edition) + ".tar.gz"
		shown := u
		if p, err := url.Parse(u); err == nil {
			shown = p.Redacted()
		}
		return u, shown
	}
	base := d.URL
	if base == "" {
		base = DownloadURL
	}
	q := url.Values{"license_key": {d.LicenseKey}, "edition_id": {edition}, "suffix": {"tar.gz"}}
	shown := base + "?edition_id=" + url.QueryEscape(edition) + "&suffix=tar.gz (licence key not shown)"
	return base + "?" + q.Encode(), shown
}

func (d Downloader) downloadOnce(ctx context.Context, edition string) error {
	fail := func(status int, err error, format string, args ...any) *Error {
		return &Error{Edition: edition, Status: status, err: err, msg: fmt.Sprintf(format, args...), key: d.LicenseKey}
	}
	u, shown := d.source(edition)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fail(0, nil, "bad URL %s", shown)
	}
	hc := d.Client
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Minute}
	}
	resp, err := hc.Do(req)
	if err != nil {
		// A *url.Error quotes the whole URL, the key with it: keep only
		// its cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fail(0, err, "GET %s: %v", shown, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		hint := ""
		if resp.StatusCode == http.StatusUnauthorized && d.Mirror == "" {
			hint = " (the licence key is wrong, or has no access to this edition)"
		}
		return fail(resp.StatusCode, nil, "GET %s: HTTP %s%s", shown, resp.Status, hint)
	}
	tmp, err := d.extract(resp.Body, edition)
	if err != nil {
		return fail(0, nil, "%s: %v", shown, err)
	}
	if err := os.Rename(tmp, File(d.Dir, edition)); err != nil {
		os.Remove(tmp)
		return fail(0, nil, "%v", err)
	}
	return nil
}

// extract writes the archive's <edition>.mmdb to a temporary file of Dir
// and returns its name.
func (d Downloader) extract(body io.Reader, edition string) (string, error) {
	zr, err := gzip.NewReader(body)
	if err != nil {
		return "", fmt.Errorf("not a tar.gz: %w", err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	want := edition + ".mmdb"
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return "", fmt.Errorf("the archive holds no %s", want)
		}
		if err != nil {
			return "", fmt.Errorf("bad archive: %w", err)
		}
		if h.Typeflag != tar.TypeReg || path.Base(h.Name) != want {
			continue
		}
		if h.Size > maxDatabaseSize {
			return "", fmt.Errorf("%s is %d bytes, more than %d", want, h.Size, maxDatabaseSize)
		}
		return writeTemp(d.Dir, want, tr)
	}
}

// metadataMarker starts a MaxMind database's metadata, within its last
// 128 KiB.
var metadataMarker = []byte("\xab\xcd\xefMaxMind.com")

func writeTemp(dir, name string, r io.Reader) (string, error) {
	f, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return "", err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	n, err := io.Copy(f, r)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", name, err)
	}
	tail := make([]byte, min(n, 128<<10))
	if _, err := f.ReadAt(tail, n-int64(len(tail))); err != nil {
		return "", err
	}
	if !bytes.Contains(tail, metadataMarker) {
		return "", fmt.Errorf("%s is not a MaxMind database (no metadata)", name)
	}
	if err := f.Chmod(0o644); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	ok = true
	return f.Name(), nil
}
