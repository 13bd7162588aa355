package luaapi

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The lua_shared_dict zones of lua/CONTRACT.md that hold the payloads.
const (
	// DictConfiguration holds the backends (and general) JSON, versioned:
	// a POST stores the new text beside the current one.
	DictConfiguration = "configuration_data"
	// DictCertificates holds one entry per certificate ID (the PEM).
	DictCertificates = "certificate_data"
	// DictServers holds one entry per host name (a certificate ID).
	DictServers = "certificate_servers"
)

// DictSizes are the sizes in bytes of the shared dicts that hold the
// payloads.
type DictSizes struct {
	ConfigurationData  int64
	CertificateData    int64
	CertificateServers int64
}

// DefaultDictSizes are the sizes of CONTRACT.md's nginx.conf: the floor of
// SizeDicts.
func DefaultDictSizes() DictSizes {
	return DictSizes{ConfigurationData: 64 << 20, CertificateData: 32 << 20, CertificateServers: 8 << 20}
}

// How a lua_shared_dict stores an entry (lua-nginx-module 0.10.23 on
// nginx's slab allocator): a node of nodeHeader bytes + key + value; up
// to half a page it takes the next power of two (at least 8 bytes), above
// it whole pages. The pool spends about 1/64 of the zone on page
// descriptors and its own header; dictSlack covers that, the small keys
// (versions, locks) and fragmentation.
const (
	nodeHeader = 72
	pageSize   = 4096
	dictSlack  = 1 << 20
)

// slab returns the bytes a dict entry with a key of k bytes and a value of
// v bytes takes.
func slab(k, v int) int64 {
	n := int64(nodeHeader + k + v)
	if n > pageSize/2 {
		return (n + pageSize - 1) / pageSize * pageSize
	}
	size := int64(8)
	for size < n {
		size *= 2
	}
	return size
}

// Needs returns how many bytes each shared dict needs so that a POST of
// these payloads is applied atomically: twice what the payload takes once
// stored (configuration_data holds the new backends beside the current
// ones; a POST of servers stores the new entries before it deletes the
// stale ones), plus the pool's overhead. It fails only when the payloads
// cannot be encoded.
func Needs(backends []Backend, servers Servers) (DictSizes, error) {
	// Marshaling each element skips the pass over the whole text that
	// encoding/json makes for a MarshalJSON method's output.
	lengths := 0
	for i := range backends {
		data, err := backends[i].MarshalJSON()
		if err != nil {
			return DictSizes{}, fmt.Errorf("encoding backend %s: %w", backends[i].Name, err)
		}
		lengths += len(data)
	}
	return needsOf(len(backends), lengths, servers), nil
}

// needsOf is Needs for backends whose encoded lengths sum to lengths.
func needsOf(backends, lengths int, servers Servers) DictSizes {
	return needsFrom(backends, lengths, certificatesSize(servers), hostsSize(servers))
}

// certificatesSize is the slabs of servers' certificates by ID.
func certificatesSize(servers Servers) int64 {
	var certs int64
	for id, pem := range servers.Certificates {
		certs += slab(len(id), len(pem))
	}
	return certs
}

// hostsSize is the slabs of servers' host → certificate entries.
func hostsSize(servers Servers) int64 {
	var hosts int64
	for host, id := range servers.Servers {
		hosts += slab(len(host), len(id))
	}
	return hosts
}

// needsFrom is needsOf from the slabs of the certificates and of the host
// entries.
func needsFrom(backends, lengths int, certs, hosts int64) DictSizes {
	// The length of json.Marshal(backends): "[", the elements with commas
	// between them, "]".
	n := 2 + max(backends-1, 0) + lengths
	return DictSizes{
		ConfigurationData:  withOverhead(2 * slab(len("backends:")+20, n)),
		CertificateData:    withOverhead(2 * certs),
		CertificateServers: withOverhead(2 * hosts),
	}
}

func withOverhead(n int64) int64 { return n + n/32 + dictSlack }

// SizeDicts returns the dict sizes for an nginx.conf whose payloads need
// need (see Needs), given the sizes current of the nginx.conf that runs
// (zero when none runs). A dict keeps its current size while that holds
// what it needs and is at most four times its new size, so that payloads
// that grow and shrink a little around a boundary do not reload nginx
// again and again; otherwise it gets the smallest power of two MiB that
// holds what it needs, at least the default. A new size means a reload
// (nginx gives the dict a new, empty zone, which the master fills from
// the preload files: see lua/CONTRACT.md).
func SizeDicts(need, current DictSizes) DictSizes {
	def := DefaultDictSizes()
	return DictSizes{
		ConfigurationData:  sizeDict(need.ConfigurationData, current.ConfigurationData, def.ConfigurationData),
		CertificateData:    sizeDict(need.CertificateData, current.CertificateData, def.CertificateData),
		CertificateServers: sizeDict(need.CertificateServers, current.CertificateServers, def.CertificateServers),
	}
}

// DictsFor returns the sizes of the shared dicts of the nginx.conf that
// serves cfg, as the controller writes it: SizeDicts of what cfg's
// payloads (FromModel) need, given running, the sizes of the nginx.conf
// that runs (DictSizesOf; zero when none runs: the controller's first
// start). It is the one rule of the controller, of render (which sizes as
// a first start) and of diff (its "from" side as a first start, its "to"
// side against the "from" sizes), so that they write the same nginx.conf.
// The error is Needs's (payloads that cannot be encoded, which their push
// reports too); the sizes are then running's, or the defaults when none
// runs, so that it causes no resize.
func DictsFor(cfg *model.Config, running DictSizes) (DictSizes, error) {
	need, err := Needs(FromModel(cfg))
	return dictsFor(need, err, running)
}

// dictsFor is DictsFor once the payloads' need (or the error of encoding
// them) is known.
func dictsFor(need DictSizes, err error, running DictSizes) (DictSizes, error) {
	if err != nil {
		if running == (DictSizes{}) {
			return DefaultDictSizes(), err
		}
		return running, err
	}
	return SizeDicts(need, running), nil
}

func sizeDict(need, current, floor int64) int64 {
	target := int64(1 << 20)
	for target < need {
		target *= 2
	}
	target = max(target, floor)
	if current >= need && current >= floor && current <= 4*target {
		return current
	}
	return target
}

// DictSizesOf reads the sizes of the three dicts from the lua_shared_dict
// lines of an nginx.conf (0 for a dict it does not declare). The lines
// are near the top of the http block: the scan stops after them.
func DictSizesOf(conf []byte) DictSizes {
	var d DictSizes
	const directive = "lua_shared_dict "
	i := bytes.Index(conf, []byte(directive))
	for i >= 0 {
		rest := conf[i+len(directive):]
		end := bytes.IndexByte(rest, ';')
		if end < 0 {
			break
		}
		fields := bytes.Fields(rest[:end])
		if len(fields) == 2 {
			size := parseSize(string(fields[1]))
			switch string(fields[0]) {
			case DictConfiguration:
				d.ConfigurationData = size
			case DictCertificates:
				d.CertificateData = size
			case DictServers:
				d.CertificateServers = size
			}
		}
		// The next line must be another lua_shared_dict.
		rest = bytes.TrimLeft(rest[end+1:], " \t\r\n")
		if !bytes.HasPrefix(rest, []byte(directive)) {
			break
		}
		i = len(conf) - len(rest)
	}
	return d
}

// parseSize reads an nginx size ("64m", "512k", "1g", "4096"); 0 when it
// is not one.
func parseSize(s string) int64 {
	mult := int64(1)
	if s != "" {
		switch s[len(s)-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		}
		if mult != 1 {
			s = s[:len(s)-1]
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n * mult
}
