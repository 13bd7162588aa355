package main

import (
	"strings"
	"testing"
)

func TestValidateStatusAddress(t *testing.T) {
	for _, ok := range []string{"127.0.0.1:10246", "127.0.0.2:1", "[::1]:65535", "127.255.255.254:8081"} {
		if err := validateStatusAddress(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for addr, why := range map[string]string{
		"127.0.0.1":            "is not IP:port",
		"127.0.0.1:10246 ssl":  "has no port",
		"127.0.0.1:10246:ssl":  "is not IP:port",
		":0":                   "does not start with an IP address",
		":10246":               "does not start with an IP address",
		"127.0.0.1:0":          "has no port",
		"127.0.0.1:65536":      "has no port",
		"127.0.0.1:010246":     "has no port",
		"127.0.0.1:+80":        "has no port",
		"0.0.0.0:10246":        "is not a loopback address",
		"[::]:10246":           "is not a loopback address",
		"10.0.0.1:10246":       "is not a loopback address",
		"localhost:10246":      "does not start with an IP address",
		"[fe80::1%eth0]:10246": "names an IPv6 zone",
		"[::1%lo]:10246":       "names an IPv6 zone",
		"127.0.0.1.example:80": "does not start with an IP address",
		"":                     "is not IP:port",
	} {
		err := validateStatusAddress(addr)
		if err == nil {
			t.Errorf("%q: accepted", addr)
			continue
		}
		if !strings.Contains(err.Error(), why) || !strings.HasPrefix(err.Error(), "--status-address must be a loopback IP and port") {
			t.Errorf("%q: %v, want it to say %q", addr, err, why)
		}
	}
}
