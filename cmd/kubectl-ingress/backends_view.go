package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
)

// maxTableEndpoints is how many addresses a table cell shows before "+N
// more" (-o wide shows them all).
const maxTableEndpoints = 3

// The values of -o.
const (
	outputTable = "table"
	outputWide  = "wide"
	outputJSON  = "json"
	outputYAML  = "yaml"
	outputName  = "name"
)

var backendsOutputs = []string{outputTable, outputWide, outputJSON, outputYAML, outputName}

// balancer says how Lua balances over b, choosing as balancer.lua does
// (and ingress-nginx's): cookie affinity -> sticky; else upstream-hash-by
// present -> chash (chashsubset with upstream-hash-by-subset); else
// load-balance round_robin or ewma; anything else -> round_robin.
func balancer(b backendInfo) string {
	w := b.wire
	if w.SessionAffinity.Name == "cookie" {
		s := "sticky"
		if w.SessionAffinity.Mode == "persistent" {
			s += " persistent"
		}
		cookie := w.SessionAffinity.CookieSessionAffinity.Name
		if cookie == "" {
			cookie = "route"
		}
		return s + ", cookie " + cookie
	}
	if b.hashByPresent || w.UpstreamHashBy.UpstreamHashBy != "" {
		by := w.UpstreamHashBy.UpstreamHashBy
		if by == "" {
			by = `""`
		}
		if w.UpstreamHashBy.UpstreamHashBySubset {
			size := w.UpstreamHashBy.UpstreamHashBySubsetSize
			if size <= 0 {
				size = 3
			}
			return fmt.Sprintf("chashsubset %s, subset %d", by, size)
		}
		return "chash " + by
	}
	switch w.LoadBalance {
	case "round_robin", "ewma":
		return w.LoadBalance
	case "":
		return "round_robin"
	}
	return fmt.Sprintf("round_robin (%q is not implemented)", w.LoadBalance)
}

// endpointAddress is address:port, with brackets around IPv6 addresses.
func endpointAddress(e luaapi.Endpoint) string {
	a := strings.TrimSuffix(strings.TrimPrefix(e.Address, "["), "]")
	return net.JoinHostPort(a, e.Port)
}

// endpointList joins the addresses of b, at most limit of them (0: all).
func endpointList(b backendInfo, limit int) string {
	eps := b.wire.Endpoints
	if len(eps) == 0 {
		return "<none>"
	}
	n := len(eps)
	if limit > 0 && n > limit {
		n = limit
	}
	parts := make([]string, 0, n+1)
	for _, e := range eps[:n] {
		parts = append(parts, endpointAddress(e))
	}
	if n < len(eps) {
		parts = append(parts, fmt.Sprintf("+%d more", len(eps)-n))
	}
	return strings.Join(parts, ",")
}

// policy describes a canary's trafficShapingPolicy: the header, cookie and
// weight that send requests to it.
func policy(t luaapi.TrafficShapingPolicy) string {
	var parts []string
	if t.Header != "" {
		switch {
		case t.HeaderValue != "":
			parts = append(parts, fmt.Sprintf("header %s=%s", t.Header, t.HeaderValue))
		case t.HeaderPattern != "":
			parts = append(parts, fmt.Sprintf("header %s~%s", t.Header, t.HeaderPattern))
		default:
			parts = append(parts, "header "+t.Header)
		}
	}
	if t.Cookie != "" {
		parts = append(parts, "cookie "+t.Cookie)
	}
	if t.Weight > 0 || len(parts) == 0 {
		total := t.WeightTotal
		if total <= 100 {
			parts = append(parts, fmt.Sprintf("weight %d%%", t.Weight))
		} else {
			parts = append(parts, fmt.Sprintf("weight %d/%d", t.Weight, total))
		}
	}
	return strings.Join(parts, ", ")
}

// canaryCell is the CANARY column of b: its alternative backends and what
// sends requests to each, or, for an alternative, its primary.
func canaryCell(b backendInfo, byName map[string]backendInfo, primaries map[string][]string) string {
	var parts []string
	for _, alt := range b.wire.AlternativeBackends {
		a, ok := byName[alt]
		if !ok {
			parts = append(parts, alt+" (missing)")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", alt, policy(a.wire.TrafficShapingPolicy)))
	}
	if p := primaries[b.wire.Name]; len(p) > 0 {
		parts = append(parts, "canary of "+strings.Join(p, ","))
	} else if b.wire.NoServer {
		parts = append(parts, fmt.Sprintf("canary, no primary (%s)", policy(b.wire.TrafficShapingPolicy)))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}

// serviceCell names the Service of b for -o wide.
func serviceCell(b backendInfo) string {
	s := b.wire.Service
	if s == nil {
		return "-"
	}
	name := s.Metadata.Name
	if s.Metadata.Namespace != "" {
		name = s.Metadata.Namespace + "/" + name
	}
	if s.Spec.Type == luaapi.ServiceTypeExternalName {
		if name == "" {
			return "ExternalName " + s.Spec.ExternalName
		}
		return name + " (ExternalName " + s.Spec.ExternalName + ")"
	}
	if name == "" {
		return "-" // ingress-nginx sends the spec alone
	}
	return name
}

// printBackendsTable writes the table of backends (wide: all endpoints and
// the Service) in kubectl's style. all are every backend of the status
// server, for the canary column.
func printBackendsTable(w io.Writer, backends, all []backendInfo, wide, noHeaders bool) error {
	byName := make(map[string]backendInfo, len(all))
	primaries := make(map[string][]string)
	for _, b := range all {
		byName[b.wire.Name] = b
		for _, alt := range b.wire.AlternativeBackends {
			primaries[alt] = append(primaries[alt], b.wire.Name)
		}
	}
	tw := printers.GetNewTabWriter(w)
	header := "NAME\tBALANCER\tREADY\tENDPOINTS\tCANARY"
	limit := maxTableEndpoints
	if wide {
		header += "\tSERVICE\tPORT"
		limit = 0
	}
	if !noHeaders {
		fmt.Fprintln(tw, header)
	}
	for _, b := range backends {
		row := []string{
			b.wire.Name,
			balancer(b),
			strconv.Itoa(len(b.wire.Endpoints)),
			endpointList(b, limit),
			canaryCell(b, byName, primaries),
		}
		if wide {
			port := string(b.wire.Port)
			if port == "" {
				port = "-"
			}
			row = append(row, serviceCell(b), port)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// wireBackends returns the backends in the wire shape.
func wireBackends(backends []backendInfo) []luaapi.Backend {
	out := make([]luaapi.Backend, len(backends))
	for i, b := range backends {
		out[i] = b.wire
	}
	return out
}

// printObject writes v as indented JSON or as YAML.
func printObject(w io.Writer, format string, v any) error {
	if format == outputYAML {
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// printBackends writes backends in format; all are every backend of the
// status server. single is --backend: one object instead of a list.
// noHeaders leaves out the table's header line.
func printBackends(w io.Writer, format string, backends, all []backendInfo, single, noHeaders bool) error {
	switch format {
	case outputJSON, outputYAML:
		if single && len(backends) == 1 {
			return printObject(w, format, backends[0].wire)
		}
		return printObject(w, format, wireBackends(backends))
	case outputName:
		for _, b := range backends {
			if _, err := fmt.Fprintln(w, b.wire.Name); err != nil {
				return err
			}
		}
		return nil
	}
	return printBackendsTable(w, backends, all, format == outputWide, noHeaders)
}
