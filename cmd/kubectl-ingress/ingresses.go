package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// ingressRoute is one host+path that an Ingress gets served, as
// ingress-nginx's plugin's "ingresses" lists them.
type ingressRoute struct {
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
	var output string
	o := &RenderOptions{IOStreams: genericiooptions.IOStreams{In: streams.In, Out: io.Discard, ErrOut: streams.ErrOut}, Render: reportingRenderFlags(), Manifests: NewManifestFlags()}
	cmd := &cobra.Command{
		Use:   "ingresses -f FILENAME [-o wide|json|yaml|name]",
		Short: "List what each Ingress of manifests gets served: host, path, TLS, Service, endpoints",
		Long: `List, for the manifests given with -f, each host and path served, with the Ingress that owns it,
whether its host has TLS, the Service and port it points to and the number of endpoints, as
ingress-nginx's plugin listed them. Only what the controller serves is listed: Ingresses of other
classes and paths that another Ingress owns are left out (render's problems, on stderr, say why).
For the Ingresses of a cluster: kubectl get ingress -A -o wide; what nginx balances over:
kubectl ingress backends.`,
		Example: `  kubectl ingress ingresses -f examples/
  kubectl ingress ingresses -f examples/ -o json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch output {
			case "", "wide", "json", "yaml", "name":
			default:
				return &usageError{err: fmt.Errorf("--output must be wide, json, yaml or name, got %q", output)}
			}
			if len(o.Manifests.Filenames) == 0 {
				return &usageError{err: errors.New("ingresses reads manifests: give -f FILENAME; the Ingresses of a cluster: kubectl get ingress -A -o wide")}
			}
			_, r, err := o.validateReadBuild()
			if err != nil {
				return err
			}
			for _, p := range r.Problems {
				fmt.Fprintln(streams.ErrOut, p.String())
			}
			return printRoutes(streams.Out, ingressRoutes(r.Config), output)
		},
	}
	o.Manifests.AddFlags(cmd.Flags())
	o.Render.AddFlags(cmd.Flags())
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format: empty for a table, wide, json, yaml or name")
	registerFixed(cmd, "output", "wide", "json", "yaml", "name")
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
			r := ingressRoute{Ingress: l.Ingress.String(), Host: s.Hostname, Path: l.Path, PathType: string(l.PathType), TLS: s.TLS,
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

func printRoutes(w io.Writer, routes []ingressRoute, output string) error {
	switch output {
	case "json":
		b, err := json.MarshalIndent(routes, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case "yaml":
		b, err := yaml.Marshal(routes)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case "name":
		last := ""
		for _, r := range routes {
			if r.Ingress != last {
				fmt.Fprintln(w, "ingress/"+r.Ingress)
				last = r.Ingress
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	header := "INGRESS\tHOST\tPATH\tTLS\tSERVICE\tPORT\tENDPOINTS"
	if output == "wide" {
		header += "\tPATH TYPE\tBACKEND"
	}
	fmt.Fprintln(tw, header)
	yesNo := map[bool]string{true: "yes", false: "no"}
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	for _, r := range routes {
		line := r.Ingress + "\t" + r.Host + "\t" + r.Path + "\t" + yesNo[r.TLS] + "\t" + dash(r.Service) + "\t" + dash(r.Port) + "\t" + strconv.Itoa(r.Endpoints)
		if output == "wide" {
			line += "\t" + r.PathType + "\t" + dash(r.Backend)
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}
