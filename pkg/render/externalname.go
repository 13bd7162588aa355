package render

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// metadataNames are the DNS names of cloud metadata services: a backend
// there would hand out the node's credentials.
var metadataNames = []string{
	"metadata", "metadata.google.internal", "metadata.goog",
	"instance-data", "instance-data.ec2.internal",
}

// metadataAddrs are metadata service addresses outside the link-local
// ranges (those are all refused): AWS's IPv6 IMDS and Alibaba Cloud's.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("fd00:ec2::254"),
	netip.MustParseAddr("100.100.100.200"),
}

// checkExternalName checks the externalName of a Service used as a
// backend and returns the endpoint address to use: a canonical IP address
// or a DNS name. It refuses what would make nginx proxy to this host or its
// node's private services: loopback, unspecified ("0.0.0.0" reaches this
// host on Linux), link-local (169.254.0.0/16, fe80::/10) and metadata
// addresses and names, "localhost". An IPv4 address in a form that
// inet_aton and the resolvers read but that is not canonical ("127.1",
// "2130706433", "0x7f.0.0.1", "0177.0.0.1", "127.000.000.001") is refused
// too, with the address it stands for; so is any other name made of
// digits and dots only.
func checkExternalName(name string) (string, error) {
	if a, err := netip.ParseAddr(name); err == nil {
		if a.Zone() != "" {
			return "", fmt.Errorf("externalName %q is an IPv6 address with a zone; refused", name)
		}
		if why := refusedAddr(a); why != "" {
			return "", fmt.Errorf("externalName %q is %s; refused", name, why)
		}
		return a.String(), nil
	}
	if a, ok := parseInetAton(name); ok {
		if why := refusedAddr(a); why != "" {
			return "", fmt.Errorf("externalName %q is read as %s by resolvers (inet_aton), %s; refused", name, a, why)
		}
		return "", fmt.Errorf("externalName %q is an IPv4 address in a form that resolvers read as %s; write %s", name, a, a)
	}
	host := strings.ToLower(strings.TrimSuffix(name, "."))
	if strings.Trim(host, "0123456789.") == "" {
		return "", fmt.Errorf("externalName %q is made of digits and dots but is not an IP address; refused", name)
	}
	if errs := validation.IsDNS1123Subdomain(host); len(errs) > 0 {
		return "", fmt.Errorf("externalName %q is not a DNS name or an IP address", name)
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "", fmt.Errorf("externalName %q names this host; refused", name)
	}
	for _, m := range metadataNames {
		if host == m {
			return "", fmt.Errorf("externalName %q names a cloud metadata service; refused", name)
		}
	}
	return name, nil
}

// refusedAddr says why a is not a backend address, "" when it may be one.
func refusedAddr(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "a loopback address"
	case a.IsUnspecified() || (a.Is4() && a.As4()[0] == 0):
		return "an unspecified address (0.0.0.0/8 and :: reach this host)"
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return "a link-local address (169.254.0.0/16, fe80::/10: the cloud metadata service lives there)"
	}
	for _, m := range metadataAddrs {
		if a == m {
			return "a cloud metadata service address"
		}
	}
	return ""
}

// parseInetAton reads s as glibc's inet_aton does: one to four parts
// separated by dots, each decimal, octal (leading 0) or hexadecimal
// (leading 0x), the last part filling the remaining bytes ("127.1" is
// 127.0.0.1, "2130706433" too).
func parseInetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base, digits := 10, p
		switch {
		case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
			base, digits = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		if digits == "" || strings.ContainsAny(digits, "+-_") {
			return netip.Addr{}, false
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	last := len(vals) - 1
	var n uint64
	for i, v := range vals[:last] {
		if v > 0xff {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*i)
	}
	if vals[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	n |= vals[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// externalNameProblem reports on the Service itself, once, why its
// externalName is refused (the Ingresses that use it hear of it too).
func (b *builder) externalNameProblem(namespace, service string) {
	svc, ok := b.services.services[nsName{namespace, service}]
	if !ok || svc.Spec.Type != corev1.ServiceTypeExternalName {
		return
	}
	if _, err := checkExternalName(svc.Spec.ExternalName); err != nil {
		ref := model.ObjectRef{Kind: "Service", Namespace: namespace, Name: service}
		b.problem(ref, "spec.externalName", "%v", err)
	}
}
