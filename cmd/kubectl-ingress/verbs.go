package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// The verbs of ingress-nginx's kubectl plugin (kubectl ingress-nginx
// conf|certs|ingresses|lint|general|info|logs|exec|ssh|backends). backends
// is ours already; conf, lint and ingresses do what they did, on
// manifests; the others
// answer with the command to use instead (exit 3), never "unknown command".

const (
	ourControllerRef = "-n kubectl-ingress deploy/kubectl-ingress-controller"
	theirRef         = "-n ingress-nginx deploy/ingress-nginx-controller"
)

// pluginPointers are the verbs that kubectl or another of our commands
// covers: the answer says which.
var pluginPointers = []struct{ verb, short, answer string }{
	{"certs", "ingress-nginx's certs: see the answer", "the certificates by host are in the servers payload of `kubectl ingress render -f FILES -o json` (Secret and checksum; never the key); for the one a cluster serves: `kubectl get secret -n NS NAME -o jsonpath='{.data.tls\\.crt}' | base64 -d | openssl x509 -noout -subject -ext subjectAltName -enddate`"},
	{"info", "ingress-nginx's info: see the answer", "`kubectl get service -n kubectl-ingress kubectl-ingress-controller -o wide` shows the controller's Service and addresses (ingress-nginx's: `kubectl get service -n ingress-nginx ingress-nginx-controller -o wide`)"},
	{"general", "ingress-nginx's general: see the answer", "`kubectl port-forward " + ourControllerRef + " 10246` then `curl http://127.0.0.1:10246/configuration/general`; `kubectl ingress backends` reads the backends the same way"},
	{"logs", "ingress-nginx's logs: use kubectl logs", "`kubectl logs " + ourControllerRef + "` (ingress-nginx's: `kubectl logs " + theirRef + "`)"},
	{"exec", "ingress-nginx's exec: use kubectl exec", "`kubectl exec -it " + ourControllerRef + " -- COMMAND`"},
	{"ssh", "ingress-nginx's ssh: use kubectl exec", "`kubectl exec -it " + ourControllerRef + " -- /bin/sh`"},
}

// addPluginVerbs adds conf, lint and the pointers to root.
func addPluginVerbs(root *cobra.Command, streams genericiooptions.IOStreams) {
	root.AddCommand(newCmdConf(streams), newCmdLint(streams), newCmdIngresses(streams))
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

// newCmdConf is ingress-nginx's conf on manifests: render -o nginx.
func newCmdConf(streams genericiooptions.IOStreams) *cobra.Command {
	o := &RenderOptions{IOStreams: streams, Render: reportingRenderFlags(), Manifests: NewManifestFlags(), Output: "nginx"}
	cmd := &cobra.Command{
		Use:   "conf -f FILENAME [--host HOST]",
		Short: "Print the nginx.conf of manifests, or the server block of one host (render -o nginx)",
		Long: `Print the nginx.conf that the controller would run for the manifests given with -f, or with
--host only the server blocks of that host: "kubectl ingress render -o nginx". ingress-nginx's
plugin read a live pod's nginx.conf instead; for that, use
  kubectl exec ` + ourControllerRef + ` -- cat /etc/kubectl-ingress/nginx.conf`,
		Example: `  kubectl ingress conf -f examples/ --host shop.example.com`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(o.Manifests.Filenames) == 0 {
				return &usageError{err: errors.New("conf reads manifests: give -f FILENAME; a live pod's nginx.conf: kubectl exec " + ourControllerRef + " -- cat /etc/kubectl-ingress/nginx.conf")}
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.Manifests.AddFlags(cmd.Flags())
	o.Render.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&o.Host, "host", "", "Only the server blocks of this host")
	return cmd
}

// newCmdLint is ingress-nginx's lint on manifests or on the cluster: the
// Problems, on stdout, and exit 2 when there are any.
func newCmdLint(streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	o := &RenderOptions{IOStreams: streams, Render: reportingRenderFlags(), Manifests: NewManifestFlags()}
	cluster := newClusterFlags()
	cmd := &cobra.Command{
		Use:   "lint [-f FILENAME] [-o json|github|sarif]",
		Short: "List the problems of manifests or of a cluster's Ingresses and exit 2 when there are any",
		Long: `List the problems of the manifests given with -f, one "kind namespace/name: field: reason" line
each (bad or unsupported annotations, snippets, missing Services, hosts claimed twice, Ingresses of
old API versions or other classes, left out), then the summary line, on stdout. -o json gives the
problems as a JSON array (kind, namespace, name, field, reason, skipped, text); -o github gives
GitHub Actions workflow commands (::error, ::warning for input left out), -o sarif a SARIF 2.1.0
log for GitHub code scanning (a rule per class of problem: skipped, snippet, not-supported, unknown,
invalid, problem; each result at its object's file and line), the summary going to stderr. Exit status: 0 with no problem, 2 with problems, 3 on an error. It is "kubectl ingress
render --fail-on-problems" without the rendered files.

Without -f, lint reads the cluster of the kubeconfig as the controller would see it: the Ingresses,
Services, EndpointSlices, TLS Secrets and ConfigMaps of the namespace (-n, else the context's;
-A for every namespace), with the controller's ConfigMap (--configmap) from its own namespace.`,
		Example: `  kubectl ingress lint -R -f manifests/
  kubectl ingress lint -f manifests/ -o github   # in a GitHub Actions step
  kubectl ingress lint -R -f manifests/ -o sarif > lint.sarif   # for github/codeql-action/upload-sarif
  kubectl ingress lint -A   # the Ingresses of the cluster, every namespace`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch output {
			case "", "json", "github", "sarif":
			default:
				return &usageError{err: fmt.Errorf("--output must be json, github or sarif, got %q", output)}
			}
			res, r, err := o.readBuild(cmd.Context(), cmd, cluster)
			if err != nil {
				return err
			}
			summary := r.summary(res.Summary())
			if err := printLint(streams, res, r, summary, output); err != nil {
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
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format: empty for text, json, github (GitHub Actions annotations) or sarif (SARIF 2.1.0)")
	registerFixed(cmd, "output", "json", "github", "sarif")
	return cmd
}

func printLint(streams genericiooptions.IOStreams, res *manifest.Result, r *rendered, summary, output string) error {
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
		fmt.Fprintln(streams.Out, p.String())
	}
	_, err := fmt.Fprintln(streams.Out, summary)
	return err
}
