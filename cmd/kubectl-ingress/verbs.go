package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// The verbs of ingress-nginx's kubectl plugin (kubectl ingress-nginx
// conf|certs|ingresses|lint|general|info|logs|exec|ssh|backends). backends
// and certs (certs.go) are ours; conf, lint and ingresses do what they
// did, on manifests or the cluster; the others
// answer with the command to use instead (exit 3), never "unknown command".

const (
	ourControllerRef = "-n kubectl-ingress deploy/kubectl-ingress-controller"
	theirRef         = "-n ingress-nginx deploy/ingress-nginx-controller"
)

// pluginPointers are the verbs that kubectl or another of our commands
// covers: the answer says which.
var pluginPointers = []struct{ verb, short, answer string }{
	{"info", "ingress-nginx's info: see the answer", "`kubectl get service -n kubectl-ingress kubectl-ingress-controller -o wide` shows the controller's Service and addresses (ingress-nginx's: `kubectl get service -n ingress-nginx ingress-nginx-controller -o wide`)"},
	{"general", "ingress-nginx's general: see the answer", "`kubectl port-forward " + ourControllerRef + " 10246` then `curl http://127.0.0.1:10246/configuration/general`; `kubectl ingress backends` reads the backends the same way"},
	{"logs", "ingress-nginx's logs: use kubectl logs", "`kubectl logs " + ourControllerRef + "` (ingress-nginx's: `kubectl logs " + theirRef + "`)"},
	{"exec", "ingress-nginx's exec: use kubectl exec", "`kubectl exec -it " + ourControllerRef + " -- COMMAND`"},
	{"ssh", "ingress-nginx's ssh: use kubectl exec", "`kubectl exec -it " + ourControllerRef + " -- /bin/sh`"},
}

// addPluginVerbs adds conf, lint and the pointers to root.
func addPluginVerbs(root *cobra.Command, streams genericiooptions.IOStreams) {
	root.AddCommand(newCmdConf(streams), newCmdLint(streams), newCmdIngresses(streams), NewCmdCerts(streams))
	for _, p := range pluginPointers {
		answer := p.answer
		verb := p.verb
		root.AddCommand(&cobra.Command{
			Use:    verb,
			Short:  p.short,
			Hidden: true,
			// Whatever ingress-nginx's flags come with it, the answer
			// is the same.
			DisableFlagParsing: true,
			RunE: func(cmd *cobra.Command, args []string) error {
				return &exitError{code: exitFailure, err: fmt.Errorf("%q is a verb of ingress-nginx's kubectl plugin that kubectl ingress does not have; use %s", verb, answer)}
			},
		})
	}
}

// newCmdConf is ingress-nginx's conf: the nginx.conf of manifests
// (render -o nginx), or without -f the one a controller pod runs, asked of
// its status server as backends asks it.
func newCmdConf(streams genericiooptions.IOStreams) *cobra.Command {
	o := &RenderOptions{IOStreams: streams, Render: reportingRenderFlags(), Manifests: NewManifestFlags(), Output: "nginx"}
	target := NewBackendsOptions(streams, defaultClusterClients())
	cmd := &cobra.Command{
		Use:   "conf [-f FILENAME] [--host HOST] [--pod NAME | --deployment NAME | -l SELECTOR | --url URL]",
		Short: "Print the nginx.conf a controller pod runs, or that manifests give, or the server blocks of one host",
		Long: `Print the nginx.conf that a controller pod's nginx runs, as ingress-nginx's plugin did, or with
--host only the server blocks of that host. It is read from the pod's status server (GET
/configuration/nginx.conf: the file, once its checksum is the one the running workers loaded)
through the same port-forward as "kubectl ingress backends"; which pod: --pod, -l, --deployment,
-n as there, or --url for the local simulator.

With -f, the nginx.conf that the controller would run for the manifests instead:
"kubectl ingress render -o nginx".`,
		Example: `  kubectl ingress conf --host shop.example.com
  kubectl ingress conf --url http://127.0.0.1:10246   # the local simulator
  kubectl ingress conf -f examples/ --host shop.example.com`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(o.Manifests.Filenames) > 0 {
				if err := o.Validate(); err != nil {
					return err
				}
				return o.Run(cmd.Context())
			}
			ns := ""
			if cmd.Flags().Changed("namespace") {
				ns = o.Manifests.Namespace
			}
			target.ConfigFlags.Namespace = &ns
			target.deploymentSet = cmd.Flags().Changed("deployment")
			if err := target.validateTarget(); err != nil {
				return &usageError{err: err}
			}
			if err := target.Complete(cmd); err != nil {
				return err
			}
			return liveConf(cmd.Context(), target, o.Host, streams)
		},
	}
	// The pod flags' -n is the manifests' -n (one flag, two meanings).
	target.ConfigFlags.Namespace = nil
	target.addTargetFlags(cmd)
	o.Manifests.AddFlags(cmd.Flags())
	cmd.Flags().Lookup("namespace").Usage = "With -f: the namespace of objects whose manifests name none (default \"default\"); without -f: the namespace of the controller pods (default: " + defaultControllerNamespace + ", else " + ingressNginxNamespace + ")"
	o.Render.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&o.Host, "host", "", "Only what serves this host: its server blocks, or its Lua route entry (--routing=lua)")
	registerBackendsCompletions(cmd, target)
	return cmd
}

// liveConf prints the nginx.conf of the status server that target names,
// or the server blocks of host in it.
func liveConf(ctx context.Context, target *BackendsOptions, host string, streams genericiooptions.IOStreams) error {
	if ctx == nil {
		ctx = context.Background()
	}
	pod, where, err := target.onePod(ctx)
	if err != nil {
		return err
	}
	a, err := target.askStatus(ctx, pod, luaapi.PathNginxConf, nil, maxNginxConfAnswer)
	if err == nil && a.status != http.StatusOK {
		err = a.unexpected()
	}
	conf := a.body
	if err == nil && host != "" {
		conf, err = hostSection(conf, host, func() ([]byte, error) {
			e, err := target.askStatus(ctx, pod, luaapi.PathRoutes, url.Values{"host": {host}}, maxNginxConfAnswer)
			switch {
			case err != nil:
				return nil, err
			case e.status == http.StatusNotFound:
				return nil, nil
			case e.status != http.StatusOK:
				return nil, e.unexpected()
			}
			return e.body, nil
		})
	}
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	_, err = streams.Out.Write(conf)
	return err
}

// newCmdLint is ingress-nginx's lint on manifests or on the cluster: the
// Problems, on stdout, and exit 2 when there are any.
func newCmdLint(streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	var noHeaders bool
	color := "auto"
	printFlags := newListPrintFlags()
	o := &RenderOptions{IOStreams: streams, Render: reportingRenderFlags(), Manifests: NewManifestFlags()}
	cluster := newClusterFlags()
	cmd := &cobra.Command{
		Use:   "lint [-f FILENAME] [-o json|github|sarif|jsonpath=…|go-template=…|custom-columns=…]",
		Short: "List the problems of manifests or of a cluster's Ingresses and exit 2 when there are any",
		Long: `List the problems of the manifests given with -f, one "kind namespace/name: field: reason" line
each (bad or unsupported annotations, snippets, missing Services, hosts claimed twice, Ingresses of
old API versions or other classes, left out), then the summary line, on stdout. -o json gives the
problems as a JSON array (kind, namespace, name, field, reason, skipped, text); -o github gives
GitHub Actions workflow commands (::error, ::warning for input left out), -o sarif a SARIF 2.1.0
log for GitHub code scanning (a rule per class of problem: skipped, snippet, not-supported, unknown,
invalid, problem; each result at its object's file and line), the summary going to stderr;
kubectl's printers (-o jsonpath=…, go-template=…, custom-columns=… and their -file forms, with
--template, --allow-missing-template-keys and --no-headers) read a v1 List whose items are the
problems as -o json prints each. On a terminal the text's problems are red (input left out
yellow): --color=auto|always|never, NO_COLOR and TERM=dumb as diff. Exit status: 0 with no problem, 2 with problems, 3 on an error. It is "kubectl ingress
render --fail-on-problems" without the rendered files.

Without -f, lint reads the cluster of the kubeconfig as the controller would see it: the Ingresses,
Services, EndpointSlices, TLS Secrets and ConfigMaps of the namespace (-n, else the context's;
-A for every namespace), with the controller's ConfigMap (--configmap) from its own namespace.`,
		Example: `  kubectl ingress lint -R -f manifests/
  kubectl ingress lint -f manifests/ -o github   # in a GitHub Actions step
  kubectl ingress lint -R -f manifests/ -o sarif > lint.sarif   # for github/codeql-action/upload-sarif
  kubectl ingress lint -A   # the Ingresses of the cluster, every namespace
  kubectl ingress lint -f examples/ -o custom-columns=INGRESS:.name,FIELD:.field,REASON:.reason`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			printer, err := ownOrKubectlPrinter(printFlags, lintOutputs, output, cmd.Flags().Changed("output"), noHeaders)
			if err != nil {
				return &usageError{err: err}
			}
			switch color {
			case "auto", "always", "never":
			default:
				return &usageError{err: fmt.Errorf("--color must be auto, always or never, got %q", color)}
			}
			res, r, err := o.readBuild(cmd.Context(), cmd, cluster)
			if err != nil {
				return err
			}
			summary := r.summary(res.Summary())
			if printer != nil {
				err = printLintWith(streams, printer, r, summary)
			} else {
				err = printLint(streams, res, r, summary, output, colorWanted(color, streams.Out, os.Getenv))
			}
			if err != nil {
				return err
			}
			if len(r.Problems) > 0 {
				return &exitError{code: exitVerdict, err: fmt.Errorf("%d problem(s) found", len(r.Problems)), silent: true}
			}
			return nil
		},
	}
	o.Manifests.AddFlags(cmd.Flags())
	o.Render.AddFlags(cmd.Flags())
	cluster.AddFlags(cmd.Flags())
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format: empty for text, json, github (GitHub Actions annotations), sarif (SARIF 2.1.0), or kubectl's "+strings.Join(backendsTemplateFormats(printFlags), ", ")+" over a v1 List of the problems as -o json prints each")
	printFlags.templates.AddFlags(cmd)
	cmd.Flags().BoolVar(&noHeaders, "no-headers", false, "With custom-columns, don't print the header line")
	cmd.Flags().StringVar(&color, "color", color, "Colour the text's problems (red; input left out yellow): auto (on a terminal, unless NO_COLOR is set or TERM=dumb), always or never")
	registerFixed(cmd, "color", "auto", "always", "never")
	registerFixed(cmd, "output", "json", "github", "sarif")
	return cmd
}

// lintOutputs are lint's own -o values ("" is the text).
var lintOutputs = []string{"", "json", "github", "sarif"}

// printLintWith prints the problems with one of kubectl's printers, the
// summary on stderr.
func printLintWith(streams genericiooptions.IOStreams, printer printers.ResourcePrinter, r *rendered, summary string) error {
	problems := make([]renderedProblem, 0, len(r.Problems))
	for _, p := range r.Problems {
		problems = append(problems, problemDoc(p, render.IsSkipped(p)))
	}
	list, err := v1List(problems)
	if err != nil {
		return err
	}
	fmt.Fprintln(streams.ErrOut, summary)
	return printError(printer.PrintObj(list, streams.Out))
}

func printLint(streams genericiooptions.IOStreams, res *manifest.Result, r *rendered, summary, output string, color bool) error {
	switch output {
	case "sarif":
		fmt.Fprintln(streams.ErrOut, summary)
		return writeLintSARIF(streams.Out, res, r.Problems)
	case "json":
		problems := []renderedProblem{}
		for _, p := range r.Problems {
			problems = append(problems, problemDoc(p, render.IsSkipped(p)))
		}
		b, err := json.MarshalIndent(problems, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(streams.ErrOut, summary)
		_, err = fmt.Fprintf(streams.Out, "%s\n", b)
		return err
	case "github":
		// Workflow commands: the message escapes %, CR and LF.
		esc := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
		for _, p := range r.Problems {
			level := "error"
			if render.IsSkipped(p) {
				level = "warning"
			}
			title := esc.Replace(strings.ToLower(p.Object.Kind) + " " + p.Object.String())
			fmt.Fprintf(streams.Out, "::%s title=%s::%s\n", level, strings.NewReplacer(",", "%2C", ":", "%3A").Replace(title), esc.Replace(p.String()))
		}
		fmt.Fprintln(streams.ErrOut, summary)
		return nil
	}
	for _, p := range r.Problems {
		line := p.String()
		if color {
			start := ansiRed
			if render.IsSkipped(p) {
				start = ansiYellow
			}
			line = start + line + ansiReset
		}
		fmt.Fprintln(streams.Out, line)
	}
	_, err := fmt.Fprintln(streams.Out, summary)
	return err
}
