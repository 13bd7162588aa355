package annotations

import (
	"fmt"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Backends: the protocol spoken to them, their balancing (load-balance,
// upstream-hash-by*) and the default-backend Service. The balancing goes to
// Lua, not to nginx.conf.

// Backend are the annotations that apply to the backends of an
// Ingress rather than to its locations; they go to Lua, not to nginx.conf.
type Backend struct {
	// LoadBalance is round_robin or ewma; "" means the ConfigMap value.
	LoadBalance string
	// UpstreamHashBy is set when upstream-hash-by is; it wins over LoadBalance.
	UpstreamHashBy model.UpstreamHashBy
	// SessionAffinity is set when affinity is "cookie".
	SessionAffinity model.SessionAffinity
	// Protocol is HTTP, HTTPS, GRPC or GRPCS (backend-protocol).
	Protocol string
	// ServiceUpstream is service-upstream: the backend's one endpoint is
	// the Service's ClusterIP and port instead of its endpoints.
	ServiceUpstream bool
}

// Defaults of the backend annotations, as in ingress-nginx.
const (
	defaultBackendProtocol = "HTTP"
	defaultSubsetSize      = 3
)

// hashByState stages the upstream-hash-by annotations until
// finishUpstreamHashBy.
type hashByState struct {
	hashBy model.UpstreamHashBy
}

func newHashByState() hashByState {
	return hashByState{hashBy: model.UpstreamHashBy{SubsetSize: defaultSubsetSize}}
}

// finishUpstreamHashBy sets the backends' consistent hashing when
// upstream-hash-by is set.
func (s *annotationState) finishUpstreamHashBy() {
	if s.hashBy.Expression != "" {
		s.out.Backend.UpstreamHashBy = s.hashBy
	}
}

// backendAnnotations are the annotations of this family, sorted by name.
var backendAnnotations = []annotationSpec{
	{Name: "backend-protocol", Kind: kindEnum, Default: defaultBackendProtocol, Description: "Protocol spoken to the backend: HTTP, HTTPS, GRPC, GRPCS or FCGI (FastCGI: see fastcgi-index) (any case).",
		set: func(s *annotationState, v string) error {
			p, err := valueOneOf(v, true, "HTTP", "HTTPS", "GRPC", "GRPCS", "FCGI")
			if err != nil {
				if strings.EqualFold(v, "AUTO_HTTP") {
					return fmt.Errorf("is an ingress-nginx protocol that kubectl-ingress does not support; it %v", err)
				}
				return err
			}
			s.out.Location.BackendProtocol, s.out.Backend.Protocol = p, p
			return nil
		}},
	{Name: "default-backend", Kind: kindServiceName, Description: "Service in the Ingress namespace (its first port) that answers when a path's Service has no endpoints (told X-Code 503 and the headers of custom-http-errors) and renders the Ingress's custom-http-errors pages.",
		set: annString(valueServiceName, func(s *annotationState) *string { return &s.out.DefaultBackend })},
	{Name: "load-balance", Kind: kindEnum, Default: "ConfigMap load-balance", Description: `Balancing algorithm of the Ingress's backends: "round_robin" or "ewma".`,
		set: annOneOf(false, func(s *annotationState) *string { return &s.out.Backend.LoadBalance }, "round_robin", "ewma")},
	{Name: "service-upstream", Kind: kindBool, Default: "false", Description: "Proxy to the Service's ClusterIP and port (one endpoint, balanced by kube-proxy) instead of its endpoints.",
		set: annBool(func(s *annotationState) *bool { return &s.out.Backend.ServiceUpstream })},
	{Name: "upstream-hash-by", Kind: kindHashBy, Description: `Consistent hashing key of the backends, e.g. "$request_uri"; wins over load-balance.`,
		set: annString(valueHashBy, func(s *annotationState) *string { return &s.hashBy.Expression })},
	{Name: "upstream-hash-by-subset", Kind: kindBool, Default: "false", Description: "Hash to a subset of endpoints and pick one of them at random.",
		set: annBool(func(s *annotationState) *bool { return &s.hashBy.Subset })},
	{Name: "upstream-hash-by-subset-size", Kind: kindInt, Default: "3", Description: "Number of endpoints of a subset.",
		set: annInt(1, 1000, func(s *annotationState) *int { return &s.hashBy.SubsetSize })},
}

// MaxUpstreamKeepalive bounds upstream-keepalive-connections. nginx
// allocates the whole keepalive cache when it reads the configuration,
// 152 bytes a connection (nginx 1.22.1, 64-bit): "keepalive 2147483647"
// fails nginx -t with "malloc(326417514344) failed (12: Cannot allocate
// memory)", 10000000 takes 1.5 GB and 1.5 s, 65535 takes 10 MB. A worker
// cannot use more idle connections to one backend than it has source
// ports anyway.
const MaxUpstreamKeepalive = 65535

// backendConfigKeys are the ConfigMap keys of this family, sorted by key.
var backendConfigKeys = []configKeySpec{
	{Key: "load-balance", Kind: kindEnum, Default: "round_robin", Description: `Default balancing algorithm: "round_robin" or "ewma".`,
		set: func(g *model.Global, v string) error {
			lb, err := valueOneOf(v, false, "round_robin", "ewma")
			if err == nil {
				g.LoadBalance = lb
			}
			return err
		}},
	{Key: "upstream-keepalive-connections", Kind: kindInt, Default: "320", Description: "Idle connections to backends kept open per worker, at most 65535 (0: none).",
		set: configInt(0, MaxUpstreamKeepalive, func(g *model.Global) *int { return &g.UpstreamKeepaliveConnections })},
}
