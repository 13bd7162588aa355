package luaapi

import (
	"encoding/json"
	"fmt"
	"slices"
)

// A RoutesCache keeps each host's entry as the JSON that nginx stores
// (encodedRoutes), not as structures: at 100,000 hosts the JSON holds
// about half the memory of its RoutePaths, and a push sends it as it is.
// What a sync reads of a cached entry besides (the Ingress that owns it,
// the named locations its paths use) is kept beside the JSON.

// encodedRoutes is the compact form of an entry (HostRoutes.encoded).
type encodedRoutes struct {
	json []byte
	// the entry's fields when json was encoded: a copy of the entry whose
	// fields were changed since is encoded again (MarshalJSON)
	host, version, appRoot, aliasOf string
	clientAuth                      *RouteClientAuth
	tls                             *RouteTLS
	// namespace and ingress name the owner: the Ingress of the entry's
	// first path that has one (HostRoutes.Owner).
	namespace, ingress string
	// shapes are the distinct named locations of its paths (Shapes).
	shapes []string
}

// hostRoutesJSON is HostRoutes without its MarshalJSON.
type hostRoutesJSON HostRoutes

// MarshalJSON writes the entry: its kept JSON when it is compact and its
// fields are still those of that JSON.
func (h HostRoutes) MarshalJSON() ([]byte, error) {
	if e := h.encoded; e != nil {
		if h.Paths == nil && h.Host == e.host && h.Version == e.version && h.AppRoot == e.appRoot && h.AliasOf == e.aliasOf && h.ClientAuth == e.clientAuth && h.TLS == e.tls {
			return e.json, nil
		}
		d, err := h.Decoded()
		if err != nil {
			return nil, err
		}
		h = d
	}
	return json.Marshal(hostRoutesJSON(h))
}

// compacted returns h (Version set) in compact form, its Paths dropped
// and data, its JSON (routesVersion's), kept.
func compacted(h HostRoutes, data []byte) HostRoutes {
	e := &encodedRoutes{json: data, host: h.Host, version: h.Version, appRoot: h.AppRoot, aliasOf: h.AliasOf, clientAuth: h.ClientAuth, tls: h.TLS}
	e.namespace, e.ingress = h.Owner()
	e.shapes = h.Shapes()
	return HostRoutes{Host: h.Host, Version: h.Version, AppRoot: h.AppRoot, AliasOf: h.AliasOf, ClientAuth: h.ClientAuth, TLS: h.TLS, encoded: e}
}

// Decoded returns h with its Paths, not compact: h itself unless it is
// compact (a RoutesCache's entry, which holds its JSON instead). Paths
// set on a compact h are kept; its other fields are h's.
func (h HostRoutes) Decoded() (HostRoutes, error) {
	if h.encoded == nil {
		return h, nil
	}
	if h.Paths == nil {
		var out HostRoutes
		if err := json.Unmarshal(h.encoded.json, (*hostRoutesJSON)(&out)); err != nil {
			return HostRoutes{}, fmt.Errorf("decoding the routes of %s: %w", h.Host, err)
		}
		h.Paths, h.Rewrites, h.PortInRedirect = out.Paths, out.Rewrites, out.PortInRedirect
	}
	h.encoded = nil
	return h, nil
}

// Owner names the Ingress of the first path of h that has one (the host's
// oldest owner in the writer's order); "" and "" when none has.
func (h *HostRoutes) Owner() (namespace, ingress string) {
	if h.encoded != nil {
		return h.encoded.namespace, h.encoded.ingress
	}
	for _, p := range h.Paths {
		if p.Ingress != "" {
			return p.Namespace, p.Ingress
		}
	}
	return "", ""
}

// Shapes are the distinct named locations of the router's server that the
// paths of h send requests to (RouteSettings.Shape), in the paths' order.
func (h *HostRoutes) Shapes() []string {
	if h.encoded != nil {
		return h.encoded.shapes
	}
	var out []string
	for _, p := range h.Paths {
		if s := p.Settings.Shape; s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
