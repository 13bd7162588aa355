package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// renderDocument is render's result as one document (-o json|yaml).
// nginx.conf is a string; the payloads are the JSON render writes to
// backends.json, servers.json and stream.json (certificates by
// reference: never a private key).
type renderDocument struct {
	Kind     string            `json:"kind"`
	Summary  string            `json:"summary"`
	Problems []renderedProblem `json:"problems"`
	// Skipped counts the problems that are input left out.
	Skipped   int             `json:"skipped"`
	NGINXConf string          `json:"nginxConf"`
	Backends  json.RawMessage `json:"backends"`
	Servers   json.RawMessage `json:"servers"`
	Stream    json.RawMessage `json:"stream,omitempty"`
	// Routes are routes.json (--routing=lua); ClassicHosts the hosts
	// that keep a server block in that mode, each with why.
	Routes       json.RawMessage     `json:"routes,omitempty"`
	ClassicHosts map[string][]string `json:"classicHosts,omitempty"`
}

// renderedProblem is a model.Problem for machines.
type renderedProblem struct {
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Field     string `json:"field,omitempty"`
	Reason    string `json:"reason"`
	Skipped   bool   `json:"skipped,omitempty"`
	// Text is the line render prints to stderr.
	Text string `json:"text"`
}

func newRenderDocument(r *rendered, summary string) renderDocument {
	d := renderDocument{
		Kind:      "RenderResult",
		Summary:   summary,
		Problems:  []renderedProblem{},
		NGINXConf: string(r.NGINXConf),
		Backends:  json.RawMessage(r.Backends),
		Servers:   json.RawMessage(r.Servers),
	}
	if r.Stream != nil {
		d.Stream = json.RawMessage(r.Stream)
	}
	if r.Routes != nil {
		d.Routes = json.RawMessage(r.Routes)
	}
	for host, reasons := range r.Classic {
		if d.ClassicHosts == nil {
			d.ClassicHosts = map[string][]string{}
		}
		for _, reason := range reasons {
			d.ClassicHosts[host] = append(d.ClassicHosts[host], reason.String())
		}
	}
	for _, p := range r.Problems {
		skipped := render.IsSkipped(p)
		if skipped {
			d.Skipped++
		}
		d.Problems = append(d.Problems, problemDoc(p, skipped))
	}
	return d
}

func problemDoc(p model.Problem, skipped bool) renderedProblem {
	return renderedProblem{Kind: p.Object.Kind, Namespace: p.Object.Namespace, Name: p.Object.Name, Field: p.Field, Reason: p.Reason, Skipped: skipped, Text: p.String()}
}

// print writes the result to stdout in the format of -o; nothing when
// only --output-dir is given.
func (o *RenderOptions) print(r *rendered, summary string) error {
	switch o.Output {
	case "":
		if o.OutputDir != "" {
			return nil
		}
		return r.writeBundle(o.Out)
	case "nginx":
		conf := r.NGINXConf
		if o.Host != "" {
			var err error
			if conf, err = hostSection(conf, o.Host, func() ([]byte, error) { return renderedRoute(r.Routes, o.Host) }); err != nil {
				return err
			}
		}
		_, err := o.Out.Write(conf)
		return err
	case "json":
		b, err := json.MarshalIndent(newRenderDocument(r, summary), "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(o.Out, "%s\n", b)
		return err
	case "yaml":
		b, err := yaml.Marshal(newRenderDocument(r, summary))
		if err != nil {
			return err
		}
		_, err = o.Out.Write(b)
		return err
	}
	return fmt.Errorf("unknown output format %q", o.Output)
}

// hostSection is what serves host in conf: its server blocks, or, when
// it has none and conf routes through lua/router.lua (--routing=lua), the
// host's route entry that entry gives (nil: the host has none), after a
// comment that says so.
func hostSection(conf []byte, host string, entry func() ([]byte, error)) ([]byte, error) {
	blocks, err := serverBlocks(conf, host)
	if err == nil || !bytes.Contains(conf, []byte(luaRouterMark)) {
		return blocks, err
	}
	e, eerr := entry()
	if eerr != nil {
		return nil, eerr
	}
	if e == nil {
		return nil, fmt.Errorf("%w, and the Lua router has no entry for it", err)
	}
	var route luaapi.HostRoutes
	if err := json.Unmarshal(e, &route); err != nil {
		return nil, fmt.Errorf("the route entry of host %q: %w", host, err)
	}
	if e, err = json.MarshalIndent(route, "", "  "); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "## host %s: no server block; lua/router.lua routes it (--routing=lua) by this entry:\n", host)
	out.Write(bytes.TrimRight(e, "\n"))
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// luaRouterMark is in the nginx.conf of --routing=lua (nginxconf's
// router server).
const luaRouterMark = "router.rewrite()"

// renderedRoute is the entry of host in routes.json (nil when none).
func renderedRoute(routes []byte, host string) ([]byte, error) {
	if routes == nil {
		return nil, nil
	}
	var entries []luaapi.HostRoutes
	if err := json.Unmarshal(routes, &entries); err != nil {
		return nil, fmt.Errorf("routes.json: %w", err)
	}
	for _, e := range entries {
		if e.Host == host {
			return json.MarshalIndent(e, "", "  ")
		}
	}
	return nil, nil
}

// serverBlocks gives the server blocks of host in conf: the lines from
// "## start server HOST" to "## end server HOST", each block once.
func serverBlocks(conf []byte, host string) ([]byte, error) {
	start, end := "## start server "+host, "## end server "+host
	var out bytes.Buffer
	var hosts []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(conf))
	sc.Buffer(make([]byte, 0, 64*1024), len(conf)+1)
	for sc.Scan() {
		line := sc.Text()
		t := strings.TrimSpace(line)
		if h, ok := strings.CutPrefix(t, "## start server "); ok {
			hosts = append(hosts, h)
		}
		if t == start {
			in = true
		}
		if in {
			out.WriteString(line)
			out.WriteByte('\n')
		}
		if t == end {
			in = false
		}
	}
	if out.Len() == 0 {
		return nil, fmt.Errorf("no server block for host %q; the servers are: %s", host, strings.Join(hosts, ", "))
	}
	return out.Bytes(), nil
}

// errEmptyInput is the error of input without a single object.
var errEmptyInput = errors.New("no objects in the input")

// requireObjects fails on input without a single object (an empty file, an
// empty standard input): rendering nothing is never what was meant.
func requireObjects(res *manifest.Result) error {
	s := res.Snapshot
	n := len(s.Ingresses) + len(s.IngressClasses) + len(s.Services) + len(s.EndpointSlices) + len(s.Secrets) + len(s.ConfigMaps) + len(s.UnreadIngresses)
	for _, c := range res.Skipped {
		n += c
	}
	if n > 0 {
		return nil
	}
	return fmt.Errorf("%w: %s read, without a single Kubernetes object (is the file or standard input empty?)", errEmptyInput, strings.Join(res.Files, ", "))
}
