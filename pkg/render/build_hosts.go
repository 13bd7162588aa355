package render

import (
	"fmt"
	"strings"
	"unicode"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// checkHost validates an Ingress host: an RFC 1123 subdomain, or "*."
// followed by one.
func checkHost(host string) error {
	name := strings.TrimPrefix(host, "*.")
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return fmt.Errorf("host %q is not a valid DNS name: %s", host, strings.Join(errs, "; "))
	}
	return nil
}

// checkServiceBackend validates what makes a backend's name
// (namespace-service-port): the API server would refuse anything else, but
// manifests read from files were never validated, and the name reaches
// nginx.conf in "set $proxy_upstream_name", where nginx would expand a "$".
func checkServiceBackend(namespace string, svc *networkingv1.IngressServiceBackend) error {
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		return fmt.Errorf("namespace %q is not a valid namespace name: %s", namespace, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1035Label(svc.Name); len(errs) > 0 {
		return fmt.Errorf("service name %q is not a valid Service name: %s", svc.Name, strings.Join(errs, "; "))
	}
	if p := svc.Port; p.Name != "" {
		if errs := validation.IsValidPortName(p.Name); len(errs) > 0 {
			return fmt.Errorf("port name %q is not a valid port name: %s", p.Name, strings.Join(errs, "; "))
		}
	} else if p.Number < 1 || p.Number > 65535 {
		return fmt.Errorf("port number %d is not from 1 to 65535", p.Number)
	}
	return nil
}

// checkPath validates an Ingress path of type pt. Every path starts with
// "/", holds no whitespace or control characters and is at most
// annotations.PathMaxLen bytes; a path matched as a regex must be one that
// Go's regexp and nginx's PCRE2 both read alike (checkRegex); a path
// matched by a prefix or exact location gives a location name of at most
// annotations.LocationNameMaxLen bytes.
func checkPath(path string, pt model.PathType, regex bool) error {
	if len(path) > annotations.PathMaxLen {
		return fmt.Errorf("path %s is longer than %d bytes (nginx refuses a parameter of 4096 bytes)", annotations.ValueQuote(path), annotations.PathMaxLen)
	}
	if n := locationNameLen(path, pt, regex); n > annotations.LocationNameMaxLen {
		return fmt.Errorf("path %s makes a location name of %d bytes: nginx matches names of at most %d bytes and cuts longer ones (the path would answer other requests than its own)",
			annotations.ValueQuote(path), n, annotations.LocationNameMaxLen)
	}
	if !strings.HasPrefix(path, "/") {
		return fmt.Errorf("path %q must start with \"/\"", path)
	}
	for _, r := range path {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fmt.Errorf("path %q holds whitespace or a control character", path)
		}
	}
	if regex {
		if err := annotations.CheckRegex(path); err != nil {
			return fmt.Errorf("path %q is not a valid regular expression: %v", path, err)
		}
	}
	return nil
}

// locationNameLen is the length of the longest prefix or exact location
// name that the classic writer makes of a path (model.LocationMatchers); 0
// for a path written as a regex (a use-regex path, or an Exact path ending
// in "/", model.Location.ExactSlash), which nginx keeps whole.
func locationNameLen(path string, pt model.PathType, regex bool) int {
	switch {
	case pt == model.PathExact && len(path) > 1 && strings.HasSuffix(path, "/"):
		return 0
	case pt == model.PathExact:
		return len(path)
	case regex:
		return 0
	case pt == model.PathPrefix:
		return len(strings.TrimRight(path, "/")) + 1
	}
	return len(path)
}

// matcherKey gives the nginx location that a path claims on its server:
// two paths with the same key would be a duplicate location. The "= /p"
// location that a Prefix path adds is left out: an Exact path of the same
// value takes it (see model.LocationMatchers).
func matcherKey(path string, pt string, regex bool) string {
	switch {
	case pt == "Exact":
		return "= " + path
	case regex:
		return "~* ^" + path
	case pt == "Prefix":
		p := strings.TrimRight(path, "/")
		if p == "" {
			return "/"
		}
		return p + "/"
	default:
		return path
	}
}
