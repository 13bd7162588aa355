package annotations

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Mirror: mirror-target, mirror-request-body, mirror-host, as in
// ingress-nginx (nginx's mirror module: each request is copied to the
// target in a subrequest whose answer is discarded). CVE-2025-1098 was
// configuration injection through mirror-target and mirror-host: here the
// target is parsed as an http(s) URL whose host is a DNS name or an IP
// address, and may hold only the variables of mirrorVars, in its path or
// query; quotes, ";", "{", "}", white space and control characters are
// refused everywhere.

// mirrorVars are the variables a mirror-target may hold after its host.
var mirrorVars = varList{names: []string{"args", "host", "is_args", "query_string", "request_uri", "scheme", "uri"}}

// mirrorState stages the mirror annotations until finishMirror.
type mirrorState struct {
	mirrorTarget *model.Mirror
	mirrorHost   string
	mirrorBody   bool
}

func newMirrorState() mirrorState { return mirrorState{mirrorBody: true} }

// mirrorAnnotations are the annotations of this family, sorted by name.
var mirrorAnnotations = []annotationSpec{
	{Name: "mirror-host", Kind: kindHostPort, Description: "Host header of the copies sent to mirror-target (default: the target's host name).",
		set: annString(valueHostPort, func(s *annotationState) *string { return &s.mirrorHost })},
	{Name: "mirror-request-body", Kind: kindOnOff, Default: "on", Description: "Send the request body with the copies.",
		set: func(s *annotationState, v string) error {
			b, err := valueOnOff(v)
			if err == nil {
				s.mirrorBody = b
			}
			return err
		}},
	{Name: "mirror-target", Kind: kindURL, Description: "Copy each request to this http(s) URL (the answer is discarded); its path may use $request_uri, $uri, $args, $is_args, $query_string, $host, $scheme. A DNS name is resolved per request (the controller uses the name servers of its resolv.conf).",
		set: func(s *annotationState, v string) error {
			m, err := valueMirrorTarget(v)
			if err == nil {
				s.mirrorTarget = &m
			}
			return err
		}},
}

// valueMirrorTarget checks a mirror-target and splits it into the parts
// the writer needs.
func valueMirrorTarget(v string) (model.Mirror, error) {
	if err := valueCheckChars(v, "$"); err != nil {
		return model.Mirror{}, err
	}
	// The URL up to the first variable must be an absolute http(s) URL
	// with a host; the variables may only come after the host.
	base, rest, _ := strings.Cut(v, "$")
	if rest != "" || strings.Contains(v, "$") {
		rest = "$" + rest
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" || u.Host == "" {
		return model.Mirror{}, errors.New(`must be an absolute http or https URL with a host (e.g. "https://mirror.example.com$request_uri")`)
	}
	if u.User != nil {
		return model.Mirror{}, errors.New("must not contain user information (user@ or user:password@)")
	}
	host := u.Hostname()
	if !valueIsDNSName(host) {
		a, err := netip.ParseAddr(host)
		if err != nil || a.Zone() != "" {
			return model.Mirror{}, fmt.Errorf("must have a host that is a DNS name or an IP address (found %s)", ValueQuote(host))
		}
		host = a.String()
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	} else if _, err := ValuePort(port); err != nil {
		return model.Mirror{}, fmt.Errorf("must have a port from 1 to 65535 (found %s)", ValueQuote(port))
	}
	if strings.HasSuffix(u.Host, ":") {
		return model.Mirror{}, errors.New("must have a port from 1 to 65535 after \":\"")
	}
	if err := checkVars(rest, mirrorVars, false); err != nil {
		return model.Mirror{}, err
	}
	// The part after the host, as written.
	uri := base[len(u.Scheme)+len("://")+len(u.Host):] + rest
	if uri != "" && uri[0] != '/' && uri[0] != '$' && uri[0] != '?' {
		return model.Mirror{}, errors.New("must have a path starting with \"/\" after the host")
	}
	hostHeader := strings.ToLower(host)
	if strings.Contains(hostHeader, ":") {
		hostHeader = "[" + hostHeader + "]"
	}
	return model.Mirror{
		Scheme:      u.Scheme,
		HostPort:    net.JoinHostPort(strings.ToLower(host), port),
		URI:         uri,
		Host:        hostHeader,
		RequestBody: true,
	}, nil
}

// finishMirror sets the location's mirror when mirror-target is valid.
func (s *annotationState) finishMirror(ing model.ObjectRef) {
	if s.mirrorTarget == nil {
		return
	}
	m := *s.mirrorTarget
	m.RequestBody = s.mirrorBody
	if s.mirrorHost != "" {
		m.Host = s.mirrorHost
	}
	m.ID = MirrorID(ing)
	s.out.Location.Mirror = &m
}

// MirrorID is the id of an Ingress's mirror: a hash of its namespace and
// name (deterministic, unlike the UID that ingress-nginx uses, which
// manifests do not carry).
func MirrorID(ing model.ObjectRef) string {
	sum := sha256.Sum256([]byte(ing.Namespace + "/" + ing.Name))
	return hex.EncodeToString(sum[:8])
}
