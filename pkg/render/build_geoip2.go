package render

import (
	"path"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// GeoIP2Databases are the MaxMind databases use-geoip2 may read: the files
// <Dir>/<edition>.mmdb of the editions asked for, and which of them the
// caller found (render does no I/O).
type GeoIP2Databases struct {
	// Dir is the directory of the files (--maxmind-db-dir), named in the
	// Problem of a missing one.
	Dir string
	// Editions are the editions asked for (--maxmind-edition-ids), Found
	// those whose file is there; both in the order asked.
	Editions []string
	Found    []string
}

// DefaultGeoIP2Databases are ingress-nginx's defaults, with no file found.
func DefaultGeoIP2Databases() GeoIP2Databases {
	return GeoIP2Databases{Dir: model.DefaultGeoIP2Dir, Editions: strings.Split(model.DefaultGeoIP2Editions, ",")}
}

// resolveGeoIP2 gives use-geoip2 the databases found, in the order asked.
// Each one asked for and missing is a Problem on use-geoip2: nginx.conf
// gets no block for it and its variables are empty (the writer defines
// the ones a config reads), where ingress-nginx turns GeoIP2 off and a
// log format that reads them fails nginx -t.
func (b *builder) resolveGeoIP2(cm model.ObjectRef, o GeoIP2Databases) {
	g := &b.global.GeoIP2
	g.Databases = nil
	if !g.Enable {
		return
	}
	found := map[string]bool{}
	for _, e := range o.Found {
		found[e] = true
	}
	var missing []string
	for _, e := range o.Editions {
		if found[e] {
			g.Databases = append(g.Databases, e)
		} else {
			missing = append(missing, e)
		}
	}
	field := annotations.ConfigField("use-geoip2")
	for _, e := range missing {
		reason := "the GeoIP2 database " + path.Join(o.Dir, e+".mmdb") + " is missing: its variables are empty"
		if len(g.Databases) == 0 {
			reason += ", and with no database GeoIP2 is off"
		}
		reason += " (the controller downloads it at start with --maxmind-license-key or --maxmind-mirror, or mount it in --maxmind-db-dir)"
		b.problems = append(b.problems, model.Problem{Object: cm, Field: field, Reason: reason})
	}
	if len(o.Editions) == 0 {
		b.problems = append(b.problems, model.Problem{Object: cm, Field: field, Reason: "no GeoIP2 database is asked for (--maxmind-edition-ids is empty): GeoIP2 is off"})
	}
}
