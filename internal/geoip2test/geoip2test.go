// Package geoip2test writes small MaxMind databases (.mmdb) for tests of
// use-geoip2: a real nginx with libnginx-mod-http-geoip2 reads them as it
// reads MaxMind's own. Only tests import it (it brings
// github.com/maxmind/mmdbwriter, which the binary does not link).
package geoip2test

import (
	"bytes"
	"fmt"
	"net"
	"os"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"
)

// Record is the data of one network.
type Record struct {
	CIDR string
	Data mmdbtype.Map
}

// City is a GeoIP2/GeoLite2-City record: the country's ISO code and
// English name, the city's English name.
func City(countryCode, countryName, city string) mmdbtype.Map {
	return mmdbtype.Map{
		"country": mmdbtype.Map{"iso_code": mmdbtype.String(countryCode), "names": mmdbtype.Map{"en": mmdbtype.String(countryName)}},
		"city":    mmdbtype.Map{"names": mmdbtype.Map{"en": mmdbtype.String(city)}},
	}
}

// ASN is a GeoLite2/GeoIP2-ASN record.
func ASN(number uint32, org string) mmdbtype.Map {
	return mmdbtype.Map{
		"autonomous_system_number":       mmdbtype.Uint32(number),
		"autonomous_system_organization": mmdbtype.String(org),
	}
}

// Bytes builds a database of databaseType ("GeoLite2-City") holding
// records; reserved networks (loopback, private) are allowed, so tests can
// map 127.0.0.0/8.
func Bytes(databaseType string, records ...Record) ([]byte, error) {
	tree, err := mmdbwriter.New(mmdbwriter.Options{
		DatabaseType:            databaseType,
		Description:             map[string]string{"en": "kubectl-ingress test database"},
		Languages:               []string{"en"},
		IncludeReservedNetworks: true,
		BuildEpoch:              1,
		RecordSize:              24,
	})
	if err != nil {
		return nil, err
	}
	for _, r := range records {
		_, network, err := net.ParseCIDR(r.CIDR)
		if err != nil {
			return nil, err
		}
		if err := tree.Insert(network, r.Data); err != nil {
			return nil, fmt.Errorf("insert %s: %w", r.CIDR, err)
		}
	}
	var b bytes.Buffer
	if _, err := tree.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Write writes the database of Bytes to path.
func Write(path, databaseType string, records ...Record) error {
	b, err := Bytes(databaseType, records...)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
