package main

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// ingressRoute is one host+path that an Ingress gets served, as
// ingress-nginx's plugin's "ingresses" lists them.
type ingressRoute struct {
	// The Ingress's namespace and name: the rows' metadata for the printers.
	Namespace string `json:"-"`
	Name      string `json:"-"`
	Ingress   string `json:"ingress"`
	Host      string `json:"host"`
	Path      string `json:"path"`
	PathType  string `json:"pathType"`
	TLS       bool   `json:"tls"`
	Service   string `json:"service,omitempty"`
	Port      string `json:"port,omitempty"`
	Backend   string `json:"backend,omitempty"`
	Endpoints int    `json:"endpoints"`
}

// newCmdIngresses is ingress-nginx's "ingresses" on manifests: what each
// Ingress gets served, after class selection, host and path ownership.
func newCmdIngresses(streams genericiooptions.IOStreams) *cobra.Command {
	printFlags := newListPrintFlags()
	o := &RenderOptions{IOStreams: genericiooptions.IOStreams{In: streams.In, Out: io.Discard, ErrOut: streams.ErrOut}, Render: reportingRenderFlags(), Manifests: NewManifestFlags()}
	cluster := newClusterFlags()
	cmd := &cobra.Command{
		Use:   "ingresses [-f FILENAME] [-o wide|json|yaml|name|jsonpath=…|go-template=…|custom-columns=…]",
		Short: "List what each Ingress of manifests or of a cluster gets served: host, path, TLS, Service, endpoints",
		Long: `List, for the manifests given with -f, each host and path served, with the Ingress that owns it,
whether its host has TLS, the Service and port it points to and the number of endpoints, as
ingress-nginx's plugin listed them. Only what the controller serves is listed: Ingresses of other
classes and paths that another Ingress owns are left out (render's problems, on stderr, say why).
Without -f, the Ingresses of the cluster of the kubeconfig, as the controller would serve them: the
namespace -n (else the context's), or every namespace with -A, with the controller's ConfigMap
from its own namespace. What nginx balances over right now: kubectl ingress backends.

-o is kubectl get's: the table (--no-headers leaves out its header line), wide (also the path type
and the backend), and kubectl's printers json, yaml, kyaml, name, jsonpath, jsonpath-as-json,
jsonpath-file, go-template, go-template-file, template, templatefile, custom-columns and
custom-columns-file, with --template and --allow-missing-template-keys. They print a v1 List whose items are one
` + ingressPathAPIVersion + ` ` + ingressPathKind + ` per row: metadata.name and metadata.namespace (the
Ingress's), ingress (namespace/name), host, path, pathType, tls, service, port, backend and
endpoints. -o name prints each Ingress once as kubectl does (ingress.networking.k8s.io/NAME). A bad
format or template exits 3.`,
		Example: `  kubectl ingress ingresses -f examples/
  kubectl ingress ingresses -f examples/ -o wide --no-headers
  kubectl ingress ingresses -f examples/ -o jsonpath='{range .items[*]}{.host}{.path}{"\n"}{end}'
  kubectl ingress ingresses -f examples/ -o custom-columns=HOST:.host,PATH:.path,SERVICE:.service
  kubectl ingress ingresses -f examples/ -o go-template='{{range .items}}{{.ingress}} {{.endpoints}}{{"\n"}}{{end}}'
  kubectl ingress ingresses -f examples/ -o name   # ingress.networking.k8s.io/NAME, each Ingress once
  kubectl ingress ingresses -A   # the cluster's, every namespace`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			printer, err := printFlags.ToPrinter()
			if err != nil {
				return err
			}
			_, r, err := o.readBuild(cmd.Context(), cmd, cluster)
			if err != nil {
				return err
			}
			for _, p := range r.Problems {
				fmt.Fprintln(streams.ErrOut, p.String())
			}
			routes := ingressRoutes(r.Config)
			if printer == nil {
				return printRoutesTable(streams.Out, routes, printFlags.Wide(), printFlags.NoHeaders)
			}
			list, err := routeList(routes, printFlags.Output == "name")
			if err != nil {
				return err
			}
			return printError(printer.PrintObj(list, streams.Out))
		},
	}
	o.Manifests.AddFlags(cmd.Flags())
	o.Render.AddFlags(cmd.Flags())
	cluster.AddFlags(cmd.Flags())
	printFlags.AddFlags(cmd)
	return cmd
}

// ingressRoutes are the served host+paths of c, in the order of its
// servers and locations, each once.
func ingressRoutes(c *model.Config) []ingressRoute {
	endpoints := map[string]int{}
	for _, b := range c.Backends {
		endpoints[b.Name] = len(b.Endpoints)
	}
	seen := map[ingressRoute]bool{}
	routes := []ingressRoute{}
	for _, s := range c.Servers {
		for _, l := range s.Locations {
			if l.Ingress.Name == "" {
				continue // the catch-all's own locations
			}
			r := ingressRoute{Namespace: l.Ingress.Namespace, Name: l.Ingress.Name, Ingress: l.Ingress.String(), Host: s.Hostname, Path: l.Path, PathType: string(l.PathType), TLS: s.TLS,
				Service: l.Service, Port: l.ServicePort, Backend: l.Backend, Endpoints: endpoints[l.Backend]}
			if seen[r] {
				continue
			}
			seen[r] = true
			routes = append(routes, r)
		}
	}
	return routes
}

// printRoutesTable writes the table of -o empty or wide.
func printRoutesTable(w io.Writer, routes []ingressRoute, wide, noHeaders bool) error {
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	header := "INGRESS\tHOST\tPATH\tTLS\tSERVICE\tPORT\tENDPOINTS"
	if wide {
		header += "\tPATH TYPE\tBACKEND"
	}
	if !noHeaders {
		fmt.Fprintln(tw, header)
	}
	yesNo := map[bool]string{true: "yes", false: "no"}
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	for _, r := range routes {
		line := r.Ingress + "\t" + r.Host + "\t" + r.Path + "\t" + yesNo[r.TLS] + "\t" + dash(r.Service) + "\t" + dash(r.Port) + "\t" + strconv.Itoa(r.Endpoints)
		if wide {
			line += "\t" + r.PathType + "\t" + dash(r.Backend)
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}
