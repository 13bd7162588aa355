package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/trace"
)

// traceReport is trace's -o json and yaml: the request as traced and the
// decision.
type traceReport struct {
	Request  traceRequest   `json:"request"`
	Decision trace.Decision `json:"decision"`
}

type traceRequest struct {
	Method   string         `json:"method"`
	Scheme   string         `json:"scheme"`
	Host     string         `json:"host"`
	Port     int            `json:"port,omitempty"`
	Target   string         `json:"target"`
	Headers  []trace.Header `json:"headers,omitempty"`
	Cookies  []trace.Cookie `json:"cookies,omitempty"`
	ClientIP string         `json:"clientIP"`
}

func printTrace(w io.Writer, format string, r trace.Request, d trace.Decision) error {
	rep := traceReport{Request: traceRequest{r.Method, r.Scheme, r.Host, r.Port, r.Target, r.Headers, r.Cookies, r.ClientIP}, Decision: d}
	switch format {
	case "json":
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case "yaml":
		b, err := yaml.Marshal(rep)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return writeTraceTable(w, rep)
}

// writeTraceTable writes the decision as two columns: what, and the
// answer; the steps as a table of their own.
func writeTraceTable(w io.Writer, rep traceReport) error {
	r, d := rep.Request, rep.Decision
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	req := r.Method + " " + r.Scheme + "://" + r.Host + r.Target
	if len(r.Headers) > 0 || len(r.Cookies) > 0 {
		var extra []string
		for _, h := range r.Headers {
			extra = append(extra, h.Name+": "+h.Value)
		}
		for _, c := range r.Cookies {
			extra = append(extra, "cookie "+c.Name+"="+c.Value)
		}
		req += " (" + strings.Join(extra, ", ") + ")"
	}
	row("REQUEST", req+" from "+r.ClientIP)
	row("HOST", hostText(d.Host))
	if d.Host.Kind != trace.HostInvalid {
		uri := d.URI
		if d.Args != "" {
			uri += " ?" + d.Args
		}
		row("URI", uri)
	}
	if l := d.Location; l != nil {
		row("LOCATION", locationText(l))
	}
	if c := d.Canary; c != nil {
		row("CANARY", canaryText(c))
	}
	row("OUTCOME", outcomeText(d.Outcome))
	if o := d.Outcome; o.Kind == trace.OutcomeProxy {
		if o.Service != "" {
			row("SERVICE", o.Service)
		}
		eps := strings.Join(o.Endpoints, ",")
		if eps == "" {
			eps = "-"
		}
		row("ENDPOINTS", eps)
		up := o.UpstreamURI
		if o.UpstreamHost != "" {
			up += " (Host " + o.UpstreamHost + ")"
		}
		row("UPSTREAM", up)
	}
	for _, u := range d.Outcome.Unless {
		row("UNLESS", u)
	}
	for _, n := range d.NotCovered {
		row("NOT TRACED", n)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(d.Steps) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tPHASE\tSETTING\tEFFECT")
	for i, s := range d.Steps {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", i+1, s.Phase, s.Setting, s.Effect)
	}
	return tw.Flush()
}

func hostText(h trace.HostMatch) string {
	switch h.Kind {
	case trace.HostInvalid:
		return "invalid: nginx answers 400"
	case trace.HostDefault:
		if h.Host == "" {
			return "no Host: the default server _"
		}
		return h.Host + ": no server_name matches, the default server _"
	case trace.HostExact:
		return h.Host + ": server " + h.Server
	case trace.HostWWWRedirect:
		return h.Host + ": from-to-www-redirect server"
	}
	return h.Host + ": " + string(h.Kind) + " " + h.Name + " of server " + h.Server
}

func locationText(l *trace.LocationMatch) string {
	s := "location " + l.Nginx + " (" + string(l.Match) + ")"
	switch l.Match {
	case trace.MatchFallback:
		return s + ": no path of the host matches"
	case trace.MatchInternal:
		return s + ": internal, not for clients"
	}
	if l.Ingress != "" {
		s += ": Ingress " + l.Ingress + " path " + l.Path + " " + string(l.PathType)
		if l.Regex {
			s += " as a regex"
		}
	}
	return s
}

func canaryText(c *trace.CanaryDecision) string {
	var s string
	switch {
	case c.Random:
		s = "random: " + c.Canary + " with weight " + strconv.Itoa(c.Weight) + "/" + strconv.Itoa(c.WeightTotal) + ", else " + c.Primary
	case c.Rule == "none":
		s = "no rule applies: primary " + c.Primary
	default:
		s = c.Chosen + " by " + c.Rule
	}
	if len(c.Skipped) > 0 {
		s += " (skipped " + strings.Join(c.Skipped, "; ") + ")"
	}
	return s
}

func outcomeText(o trace.Outcome) string {
	if o.Kind == trace.OutcomeProxy {
		return "proxied to backend " + o.Backend
	}
	if o.Status == 0 {
		return "not traced"
	}
	s := strconv.Itoa(o.Status)
	if o.Location != "" {
		s += " Location " + o.Location
		if o.Absolute {
			s += " (made absolute with the request's host and port)"
		}
	}
	return s
}
