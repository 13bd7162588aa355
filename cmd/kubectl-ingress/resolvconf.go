package main

import (
	"bufio"
	"io"
	"net/netip"
	"os"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
)

// systemResolvers returns the name servers of the resolv.conf at path (the
// DNS servers nginx asks for the hosts of auth-url, as ingress-nginx reads
// them at start); none when the file cannot be read.
func systemResolvers(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	return parseResolvConf(f)
}

// parseResolvConf returns the IP addresses of the "nameserver" lines.
func parseResolvConf(r io.Reader) []string {
	var out []string
	s := bufio.NewScanner(r)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) < 2 || fields[0] != "nameserver" {
			continue
		}
		if a, err := netip.ParseAddr(fields[1]); err == nil && a.Zone() == "" {
			out = append(out, a.String())
		}
	}
	return out
}

// confOptions are the writer's options of the running controller: the
// flags', and the system's name servers for the hosts of auth-url.
func (o *ControllerOptions) confOptions() nginxconf.ConfOptions {
	c := o.Render.ConfOptions()
	c.Resolvers = systemResolvers("/etc/resolv.conf")
	return c
}
