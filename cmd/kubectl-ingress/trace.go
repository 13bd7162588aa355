package main

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/trace"
)

const traceLong = `Say what nginx does with one request, computed from the manifests (or the live cluster) the way
the controller configures nginx (--routing=nginx, the classic nginx.conf): which server entry the host
picks (exact, wildcard, alias, www redirect or the catch-all default server), which Ingress path and nginx
location serve the path and how it matched (Exact, Prefix, regex, ImplementationSpecific, nginx's own 301 to
"/path/"), the settings applied in nginx's order (HTTPS redirect, redirects, app-root, source ranges, auth,
limits, CORS, rewrite-target, upstream-vhost, custom error pages), the canary decision (header, cookie or
weight — the weight is random and says so) and the outcome: the backend with its Service and endpoints and
the URI it gets, or nginx's own status and Location.

The URL is the one the client asks for; without a scheme it is http. The path and query are taken as
written, not decoded: nginx normalises them itself (percent-decoding, merged slashes, dot segments) and
trace shows the result.

Read the manifests with -f (files, directories, - for stdin, as render reads them), or, without -f, the
live cluster through the kubeconfig flags as diff reads it (-A for every namespace; else -n or the
context's namespace, and the controller's ConfigMap).

Exit status: 0 when the request was traced (whatever nginx answers); 3 on an error (bad flags or URL,
unreadable or empty input, no access to the cluster).`

const traceExample = `  # Which backend gets this request, and why?
  kubectl ingress trace -f examples/ http://shop.example.com/api/v1/items

  # A canary by header, from a given client address, as JSON
  kubectl ingress trace -f examples/ shop.example.com/api --header X-Canary:always --client-ip 10.1.2.3 -o json

  # Against the live cluster, every namespace
  kubectl ingress trace -A https://shop.example.com/`

// TraceOptions are the flags of "kubectl ingress trace".
type TraceOptions struct {
	Filenames     []string
	Recursive     bool
	AllNamespaces bool
	Headers       []string
	Cookies       []string
	Method        string
	ClientIP      string
	Output        string
	Render        RenderFlags
	ConfigFlags   *genericclioptions.ConfigFlags

	// URL is the argument; request is what Complete makes of it and of
	// the request flags.
	URL     string
	request trace.Request

	genericiooptions.IOStreams
}

// NewCmdTrace builds "kubectl ingress trace".
func NewCmdTrace(streams genericiooptions.IOStreams) *cobra.Command {
	o := &TraceOptions{
		IOStreams:   streams,
		Render:      NewRenderFlags(),
		ConfigFlags: genericclioptions.NewConfigFlags(true),
		Method:      "GET",
	}
	cmd := &cobra.Command{
		Use:     "trace URL [-f FILENAME] [--header NAME:VALUE] [--cookie NAME=VALUE] [-o json|yaml]",
		Short:   "Say which host, path, settings, canary and backend nginx gives a request, and why",
		Long:    traceLong,
		Example: traceExample,
		Args:    oneURL,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringSliceVarP(&o.Filenames, "filename", "f", nil, "A manifest file, a directory of them, or - for stdin (repeatable); without -f, the live cluster")
	f.BoolVarP(&o.Recursive, "recursive", "R", false, "Read the directories given with -f recursively")
	f.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "Without -f: read the live objects of every namespace (default: -n or the context's namespace, and the controller's ConfigMap)")
	f.StringArrayVarP(&o.Headers, "header", "H", nil, "A request header NAME:VALUE (repeatable); Host: overrides the URL's host")
	f.StringArrayVar(&o.Cookies, "cookie", nil, "A request cookie NAME=VALUE (repeatable)")
	f.StringVarP(&o.Method, "method", "X", o.Method, "The request method")
	f.StringVar(&o.ClientIP, "client-ip", "127.0.0.1", "The client address nginx sees (source ranges, limits, block-cidrs)")
	f.StringVarP(&o.Output, "output", "o", "", "Output format: empty for a table, json or yaml")
	o.Render.AddFlags(f)
	o.ConfigFlags.AddFlags(f)
	return cmd
}

// oneURL wants exactly one argument, the URL.
func oneURL(cmd *cobra.Command, args []string) error {
	switch len(args) {
	case 1:
		return nil
	case 0:
		return &usageError{err: fmt.Errorf("%s needs the URL to trace, e.g. http://shop.example.com/api", cmd.CommandPath())}
	}
	return &usageError{err: fmt.Errorf("unexpected argument %q: %s traces one URL (files go with -f)", args[1], cmd.CommandPath())}
}

// Complete makes the request of the URL and the request flags.
func (o *TraceOptions) Complete(args []string) error {
	o.URL = args[0]
	r, err := parseTraceURL(o.URL)
	if err != nil {
		return &usageError{err: err}
	}
	r.Method = strings.ToUpper(o.Method)
	r.ClientIP = o.ClientIP
	for _, h := range o.Headers {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || !isToken(name) {
			return &usageError{err: fmt.Errorf("--header %q: want NAME:VALUE", h)}
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(name) {
		case "host":
			r.Host = value
		case "cookie":
			for _, c := range strings.Split(value, ";") {
				n, v, _ := strings.Cut(strings.TrimSpace(c), "=")
				if n != "" {
					r.Cookies = append(r.Cookies, trace.Cookie{Name: n, Value: v})
				}
			}
		default:
			r.Headers = append(r.Headers, trace.Header{Name: name, Value: value})
		}
	}
	for _, c := range o.Cookies {
		name, value, ok := strings.Cut(c, "=")
		if !ok || !isToken(name) {
			return &usageError{err: fmt.Errorf("--cookie %q: want NAME=VALUE", c)}
		}
		r.Cookies = append(r.Cookies, trace.Cookie{Name: name, Value: value})
	}
	o.request = r
	return nil
}

// parseTraceURL reads a URL as a client sends it: scheme (http when
// none), host and port, and the path and query as written (a fragment is
// never sent).
func parseTraceURL(raw string) (trace.Request, error) {
	r := trace.Request{Scheme: "http"}
	rest := raw
	if scheme, after, ok := strings.Cut(raw, "://"); ok {
		r.Scheme = strings.ToLower(scheme)
		rest = after
	}
	if r.Scheme != "http" && r.Scheme != "https" {
		return r, fmt.Errorf("URL %q: the scheme must be http or https", raw)
	}
	end := strings.IndexAny(rest, "/?#")
	authority := rest
	if end >= 0 {
		authority, rest = rest[:end], rest[end:]
	} else {
		rest = ""
	}
	if authority == "" || strings.Contains(authority, "@") || strings.ContainsAny(authority, " \t") {
		return r, fmt.Errorf("URL %q: want [http[s]://]HOST[:PORT][/PATH][?QUERY]", raw)
	}
	r.Host = authority
	host, port := authority, ""
	if i := strings.LastIndexByte(authority, ':'); i >= 0 && !strings.HasSuffix(authority, "]") {
		host, port = authority[:i], authority[i+1:]
	}
	if host == "" {
		return r, fmt.Errorf("URL %q: no host", raw)
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return r, fmt.Errorf("URL %q: bad port %q", raw, port)
		}
		r.Port = n
	}
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	if strings.HasPrefix(rest, "?") || rest == "" {
		rest = "/" + rest
	}
	r.Target = rest
	return r, nil
}

// isToken says whether s is an HTTP token (a header or cookie name).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?={}`, c) >= 0 {
			return false
		}
	}
	return true
}

// Validate checks the flags.
func (o *TraceOptions) Validate() error {
	switch o.Output {
	case "", "json", "yaml":
	default:
		return &usageError{err: fmt.Errorf("--output must be json or yaml, got %q", o.Output)}
	}
	if !isToken(o.request.Method) {
		return &usageError{err: fmt.Errorf("--method %q is not an HTTP method", o.Method)}
	}
	if _, err := netip.ParseAddr(o.ClientIP); err != nil {
		return &usageError{err: fmt.Errorf("--client-ip %q is not an IP address", o.ClientIP)}
	}
	if o.AllNamespaces && len(o.Filenames) > 0 {
		return &usageError{err: errors.New("-A reads the live cluster: it does not go with -f")}
	}
	return o.Render.Validate()
}

// Run reads the objects, builds the model and prints the decision.
func (o *TraceOptions) Run(ctx context.Context) error {
	snap, err := o.snapshot(ctx)
	if err != nil {
		return err
	}
	cfg, problems := render.Build(snap, o.Render.BuildOptions())
	if n := len(problems); n > 0 {
		fmt.Fprintf(o.ErrOut, "%d %s in the input (kubectl ingress render lists them)\n", n, plural(n, "problem", "problems"))
	}
	d := trace.Route(cfg, o.request)
	return printTrace(o.Out, o.Output, o.request, d)
}

// snapshot reads -f as render does, else the live cluster as diff does.
func (o *TraceOptions) snapshot(ctx context.Context) (render.Snapshot, error) {
	d := &DiffOptions{ConfigFlags: o.ConfigFlags, AllNamespaces: o.AllNamespaces, Render: o.Render, IOStreams: o.IOStreams}
	ns := d.namespace()
	if len(o.Filenames) == 0 {
		return d.liveSnapshot(ctx, ns, render.Snapshot{})
	}
	res, err := manifest.Read(o.Filenames, manifest.Options{Recursive: o.Recursive, DefaultNamespace: ns, Stdin: o.In})
	if err != nil {
		return render.Snapshot{}, err
	}
	if err := requireObjects(res); err != nil {
		return render.Snapshot{}, err
	}
	return res.Snapshot, nil
}
