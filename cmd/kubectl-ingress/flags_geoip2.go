package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/internal/maxmind"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// GeoIP2Flags say where the MaxMind databases of the ConfigMap's
// use-geoip2 are (render and controller): --maxmind-db-dir and
// --maxmind-edition-ids, as ingress-nginx names the editions.
type GeoIP2Flags struct {
	DBDir      string
	EditionIDs string
	editions   []string
}

// NewGeoIP2Flags returns ingress-nginx's defaults.
func NewGeoIP2Flags() GeoIP2Flags {
	return GeoIP2Flags{DBDir: model.DefaultGeoIP2Dir, EditionIDs: model.DefaultGeoIP2Editions}
}

// AddFlags registers the flags.
func (f *GeoIP2Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.DBDir, "maxmind-db-dir", f.DBDir, "The directory of the MaxMind GeoIP2 databases (<edition>.mmdb) that the ConfigMap's use-geoip2 reads")
	fs.StringVar(&f.EditionIDs, "maxmind-edition-ids", f.EditionIDs, "The MaxMind editions use-geoip2 reads (and the controller downloads), comma-separated: "+strings.Join(model.GeoIP2Editions(), ", "))
}

// Validate checks the editions.
func (f *GeoIP2Flags) Validate() error {
	editions, err := maxmind.ParseEditions(f.EditionIDs)
	if err != nil {
		return fmt.Errorf("--maxmind-edition-ids: %w", err)
	}
	if f.DBDir == "" {
		return errors.New("--maxmind-db-dir must not be empty")
	}
	f.editions = editions
	return nil
}

// databases looks which databases are in the directory now.
func (f *GeoIP2Flags) databases() render.GeoIP2Databases {
	editions := f.editions
	if editions == nil {
		editions, _ = maxmind.ParseEditions(f.EditionIDs)
	}
	return render.GeoIP2Databases{Dir: f.DBDir, Editions: editions, Found: maxmind.Found(f.DBDir, editions)}
}

// MaxMindDownloadFlags are the controller's flags that download the
// databases at its start, before the first config, as ingress-nginx's:
// --maxmind-license-key or --maxmind-mirror, --maxmind-retries-count and
// --maxmind-retries-timeout.
type MaxMindDownloadFlags struct {
	LicenseKey     string
	Mirror         string
	RetriesCount   int
	RetriesTimeout time.Duration
}

// AddFlags registers the flags.
func (f *MaxMindDownloadFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.LicenseKey, "maxmind-license-key", "", "MaxMind licence key: download the --maxmind-edition-ids databases into --maxmind-db-dir at start (never logged)")
	fs.StringVar(&f.Mirror, "maxmind-mirror", "", "A mirror serving <edition>.tar.gz to download the databases from instead of MaxMind (no licence key needed), e.g. http://geoip.local/databases")
	fs.IntVar(&f.RetriesCount, "maxmind-retries-count", 1, "Attempts to download each database")
	fs.DurationVar(&f.RetriesTimeout, "maxmind-retries-timeout", 0, "Delay between the first and second download attempt, 1.5 times longer each next one; 0s: no retry")
}

// Validate checks the flags.
func (f *MaxMindDownloadFlags) Validate() error {
	if f.RetriesCount < 0 {
		return fmt.Errorf("--maxmind-retries-count must not be negative, got %d", f.RetriesCount)
	}
	if f.RetriesTimeout < 0 {
		return fmt.Errorf("--maxmind-retries-timeout must not be negative, got %v", f.RetriesTimeout)
	}
	return nil
}

// download fetches the databases when a licence key or a mirror is given.
// A failure is logged and not fatal, as in ingress-nginx: a database
// still missing is then a Problem on use-geoip2 at each render.
func (f *MaxMindDownloadFlags) download(ctx context.Context, g GeoIP2Flags) {
	if f.LicenseKey == "" && f.Mirror == "" {
		return
	}
	log := klog.FromContext(ctx)
	editions := g.databases().Editions
	if len(editions) == 0 {
		return
	}
	log.Info("Downloading the MaxMind GeoIP2 databases", "editions", editions, "dir", g.DBDir, "mirror", f.Mirror)
	d := maxmind.Downloader{
		Dir: g.DBDir, LicenseKey: f.LicenseKey, Mirror: f.Mirror,
		Attempts: f.RetriesCount, RetryDelay: f.RetriesTimeout,
		OnRetry: func(edition string, attempt int, err error) {
			log.Info("GeoIP2 database download failed, retrying", "edition", edition, "attempt", attempt, "err", err.Error())
		},
	}
	start := time.Now()
	if err := d.Download(ctx, editions); err != nil {
		log.Error(err, "Downloading the MaxMind GeoIP2 databases failed; use-geoip2 reads only the databases present")
		return
	}
	log.Info("Downloaded the MaxMind GeoIP2 databases", "editions", editions, "duration", time.Since(start).Round(time.Millisecond).String())
}
