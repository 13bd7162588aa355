package main

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
)

// validateStatusAddress checks --status-address: a loopback IP and a port
// from 1 to 65535, written as nginx's listen and our Lua client both take
// it ("127.0.0.1:10246", "[::1]:10246"). The status server returns private
// keys, so it must never listen beyond the pod; a host name, a missing or
// zero port and anything after the port (nginx listen parameters such as
// "ssl") are refused.
func validateStatusAddress(addr string) error {
	bad := func(why string) error {
		return fmt.Errorf("--status-address must be a loopback IP and port such as 127.0.0.1:10246 (the status server returns private keys): %q %s", addr, why)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return bad("is not IP:port")
	}
	ip, err := netip.ParseAddr(host)
	switch {
	case err != nil:
		return bad("does not start with an IP address")
	case ip.Zone() != "":
		return bad("names an IPv6 zone")
	case !ip.IsLoopback():
		return bad("is not a loopback address")
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
		return bad("has no port from 1 to 65535")
	}
	return nil
}
