package render

import (
	"strings"
	"testing"
)

func TestCheckExternalName(t *testing.T) {
	for _, c := range []struct {
		name, addr, want string // want: part of the error, "" when accepted
	}{
		{"api.example.org", "api.example.org", ""},
		{"legacy.example.net.", "legacy.example.net.", ""},
		{"10.0.0.5", "10.0.0.5", ""},
		{"2001:DB8::1", "2001:db8::1", ""},
		{"3com.example", "3com.example", ""},
		// loopback in every form a resolver reads
		{"127.0.0.1", "", "loopback"},
		{"127.1", "", "read as 127.0.0.1"},
		{"2130706433", "", "read as 127.0.0.1"},
		{"127.000.000.001", "", "read as 127.0.0.1"},
		{"0177.0.0.1", "", "read as 127.0.0.1"},
		{"0x7f.0.0.1", "", "read as 127.0.0.1"},
		{"0x7f000001", "", "read as 127.0.0.1"},
		{"0X7F.1", "", "read as 127.0.0.1"},
		{"127.0.1", "", "read as 127.0.0.1"},
		{"::1", "", "loopback"},
		{"::ffff:127.0.0.1", "", "loopback"},
		{"0:0:0:0:0:0:0:1", "", "loopback"},
		// unspecified
		{"0", "", "read as 0.0.0.0"},
		{"0.0.0.0", "", "unspecified"},
		{"0.1.2.3", "", "unspecified"},
		{"::", "", "unspecified"},
		// link-local and metadata
		{"169.254.169.254", "", "link-local"},
		{"169.254.170.2", "", "link-local"},
		{"2852039166", "", "read as 169.254.169.254"},
		{"fe80::1", "", "link-local"},
		{"fe80::1%eth0", "", "zone"},
		{"fd00:ec2::254", "", "metadata"},
		{"100.100.100.200", "", "metadata"},
		{"metadata.google.internal", "", "metadata"},
		{"Metadata.Google.Internal.", "", "metadata"},
		{"instance-data", "", "metadata"},
		{"localhost", "", "names this host"},
		{"x.localhost", "", "names this host"},
		// non-canonical forms of other addresses, and digits that are no address
		{"10.1", "", "write 10.0.0.1"},
		{"010.0.0.1", "", "write 8.0.0.1"},
		{"256.1.1.1", "", "digits and dots"},
		{"1.2.3.4.5", "", "digits and dots"},
		{"127.0.0.1.", "", "digits and dots"},
		{"99999999999", "", "digits and dots"},
		{"08.1.1.1", "", "digits and dots"},
		{"bad_name;.example.com", "", "not a DNS name"},
		{"", "", "digits and dots"},
	} {
		addr, err := checkExternalName(c.name)
		switch {
		case c.want == "" && (err != nil || addr != c.addr):
			t.Errorf("checkExternalName(%q) = %q, %v; want %q", c.name, addr, err, c.addr)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("checkExternalName(%q) = %q, %v; want an error with %q", c.name, addr, err, c.want)
		}
	}
}

func TestParseInetAton(t *testing.T) {
	for in, want := range map[string]string{
		"1.2.3.4": "1.2.3.4", "1": "0.0.0.1", "1.2": "1.0.0.2", "1.2.3": "1.2.0.3",
		"1.65535": "1.0.255.255", "1.2.65535": "1.2.255.255", "1.2.65536": "", "1.16777215": "1.255.255.255", "4294967295": "255.255.255.255",
		"4294967296": "", "0x": "", "0X7F.1": "127.0.0.1", "0x7f000001": "127.0.0.1", "0xg": "", "09": "", "00": "0.0.0.0", "1.2.3.256": "", "256.0.0.1": "",
		"1..2": "", ".1": "", "+1": "", "0x-1": "", "1_0": "",
	} {
		a, ok := parseInetAton(in)
		got := ""
		if ok {
			got = a.String()
		}
		if got != want {
			t.Errorf("parseInetAton(%q) = %q, want %q", in, got, want)
		}
	}
}
