package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
)

// backendsExitDisagree is the exit status of --all-pods when the pods
// disagree.
const backendsExitDisagree = 2

// statusTimeout bounds the exchange with one pod: port-forward and answer.
const statusTimeout = 30 * time.Second

const backendsLong = `Show the backends that a controller pod's nginx is really using: what its Lua balancer holds,
read from the pod's status server (127.0.0.1:10246 inside the pod, GET /configuration/backends)
through a port-forward that kubectl ingress makes itself, so that neither kubectl nor curl nor a
shell is needed, in the image or here. An ingress-nginx controller pod answers the same way.

Which pod: --pod NAME; else the pods of -l SELECTOR; else the pods of --deployment, in -n. Without
--deployment, the Deployment kubectl-ingress-controller (as deploy/ installs it) is looked for,
then ingress-nginx-controller; without -n, in namespace kubectl-ingress, then ingress-nginx. One
running pod is asked, a ready one first; --all-pods asks every running pod and shows where they disagree. --url asks a status
server directly: the local simulator (kubectl ingress controller --from-files), or a port of
your own.

The table shows, per backend: the balancer as Lua chooses it (sticky with cookie affinity;
chash, or chashsubset, with upstream-hash-by; else load-balance: round_robin or ewma), the
number of endpoints Lua balances over and their addresses, and the canary backends with what
sends requests to them. -o wide shows every address and the Service; -o json and -o yaml give
the backends as the status server holds them (the fields Lua reads, with ingress-nginx's names);
-o name and --list give the names. --no-headers leaves out the header line of the table and wide.

Exit status: 0 on success; 3 on an error (no such pod, pod not running, port-forward refused,
an answer that is not a JSON array of backends); 2 when --all-pods finds that the pods disagree.`

const backendsExample = `  # The backends of the controller Deployment: kubectl-ingress/kubectl-ingress-controller as
  # deploy/ installs it, else ingress-nginx/ingress-nginx-controller
  kubectl ingress backends

  # One backend of a given pod, as JSON
  kubectl ingress backends --pod ingress-nginx-controller-5d8f7c9b4-x2x8q --backend shop-web-80 -o json

  # Do all the controller pods balance over the same endpoints?
  kubectl ingress backends -n kube-system -l app.kubernetes.io/name=ingress-nginx --all-pods

  # The local simulator, or a status server forwarded by hand
  kubectl ingress backends --url http://127.0.0.1:10246 --list`

// BackendsOptions are the flags of "kubectl ingress backends".
type BackendsOptions struct {
	ConfigFlags *genericclioptions.ConfigFlags

	Pod        string
	Deployment string
	Selector   string
	Container  string
	AllPods    bool
	URL        string
	StatusPort int

	List      bool
	Backend   string
	Output    string
	NoHeaders bool

	genericiooptions.IOStreams

	// printFlags are kubectl's template and column printers
	// (backends_templates.go); printer is the one -o chose, nil for
	// backends' own formats.
	printFlags *listPrintFlags
	printer    printers.ResourcePrinter
	outputSet  bool

	clients clusterClients
	// set by Complete
	// queries are where to look for the controller pods, in order;
	// query is the one that found them.
	queries   []podQuery
	query     podQuery
	clientset kubernetes.Interface
	dialer    statusDialer
	http      *http.Client
	// deploymentSet is whether --deployment was given.
	deploymentSet bool
}

// NewBackendsOptions returns the defaults, reaching the cluster of the
// kubeconfig through clients.
func NewBackendsOptions(streams genericiooptions.IOStreams, clients clusterClients) *BackendsOptions {
	cf := genericclioptions.NewConfigFlags(true)
	ns := ""
	cf.Namespace = &ns
	return &BackendsOptions{
		ConfigFlags: cf,
		StatusPort:  defaultStatusPort,
		Output:      outputTable,
		IOStreams:   streams,
		clients:     clients,
		printFlags:  newListPrintFlags(),
	}
}

// NewCmdBackends builds "kubectl ingress backends".
func NewCmdBackends(streams genericiooptions.IOStreams) *cobra.Command {
	return newCmdBackends(NewBackendsOptions(streams, defaultClusterClients()))
}

func newCmdBackends(o *BackendsOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "backends [--pod NAME | --deployment NAME | -l SELECTOR | --url URL] [--list | --backend NAME]",
		Short:   "Show the backends that a controller pod's nginx is using, as its Lua balancer holds them",
		Long:    backendsLong,
		Example: backendsExample,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	o.addTargetFlags(cmd)
	f.BoolVar(&o.AllPods, "all-pods", false, "Ask every running pod and show where they disagree")
	f.BoolVar(&o.List, "list", false, "Print the backend names only, one a line (as -o name)")
	f.StringVar(&o.Backend, "backend", "", "Show this backend only")
	f.StringVarP(&o.Output, "output", "o", o.Output, "Output format: "+strings.Join(slices.Concat(backendsOutputs, backendsTemplateFormats(o.printFlags)), ", ")+". The templates and custom columns read a v1 List whose items are the backends as -o json prints them (kubectl's printers: https://kubernetes.io/docs/reference/kubectl/jsonpath/)")
	o.printFlags.templates.AddFlags(cmd)
	f.BoolVar(&o.NoHeaders, "no-headers", false, "When using the table, wide or custom-columns output format, don't print headers (default print headers).")
	registerBackendsCompletions(cmd, o)
	return cmd
}

// addTargetFlags registers the flags that say which status server to ask:
// a pod of the cluster (--pod, -l, --deployment, -n and kubectl's
// kubeconfig flags) or --url. backends and certs share them.
func (o *BackendsOptions) addTargetFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.Pod, "pod", "", "The controller pod to ask")
	f.StringVar(&o.Deployment, "deployment", "", "The controller Deployment, whose pods are asked (default: "+defaultControllerDeployment+", else "+ingressNginxDeployment+")")
	f.StringVarP(&o.Selector, "selector", "l", "", "A label selector of the controller pods to ask")
	f.StringVar(&o.Container, "container", "", `The controller container, which must run (default: the pod's only container, else "controller")`)
	f.StringVar(&o.URL, "url", "", "Ask the status server at this URL instead of a pod (for example http://127.0.0.1:10246)")
	f.IntVar(&o.StatusPort, "status-port", o.StatusPort, "The port of the status server inside the pod")
	o.ConfigFlags.AddFlags(f)
	if ns := f.Lookup("namespace"); ns != nil {
		ns.Usage = "The namespace of the controller pods (default: " + defaultControllerNamespace + ", else " + ingressNginxNamespace + ")"
	}
}

// Complete fills in the query and the clients from the flags.
func (o *BackendsOptions) Complete(cmd *cobra.Command) error {
	o.deploymentSet = cmd.Flags().Changed("deployment")
	o.outputSet = cmd.Flags().Changed("output")
	if o.List {
		if cmd.Flags().Changed("output") && o.Output != outputName {
			return fmt.Errorf("--list prints the names; it cannot be combined with -o %s", o.Output)
		}
		o.Output = outputName
	}
	o.queries = o.podQueries()
	if o.http == nil {
		o.http = &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	}
	if o.URL != "" {
		if o.dialer == nil {
			o.dialer = urlDialer{url: strings.TrimSuffix(strings.TrimRight(o.URL, "/"), luaapi.PathBackends)}
		}
		return nil
	}
	var err error
	if o.clientset == nil {
		if o.clientset, err = o.clients.clientset(o.ConfigFlags); err != nil {
			return err
		}
	}
	if o.dialer == nil {
		if o.dialer, err = o.clients.dialer(o.ConfigFlags, o.StatusPort); err != nil {
			return err
		}
	}
	return nil
}

// podQueries are where the flags say the controller is, in the order to
// try: one place when the flags name it, else ours (as deploy/ installs
// it) and then ingress-nginx's, for what the flags leave open.
func (o *BackendsOptions) podQueries() []podQuery {
	ns := ""
	if o.ConfigFlags.Namespace != nil {
		ns = *o.ConfigFlags.Namespace
	}
	q := podQuery{Namespace: ns, Pod: o.Pod, Selector: o.Selector, Deployment: o.Deployment, Container: o.Container}
	byName := q.Pod != "" || q.Selector != ""
	if (byName || q.Deployment != "") && ns != "" {
		return []podQuery{q}
	}
	ours, theirs := q, q
	if ns == "" {
		ours.Namespace, theirs.Namespace = defaultControllerNamespace, ingressNginxNamespace
	}
	if !byName && q.Deployment == "" {
		ours.Deployment, theirs.Deployment = defaultControllerDeployment, ingressNginxDeployment
	}
	return []podQuery{ours, theirs}
}

// lookupNamespaces are the namespaces the controller is looked for in:
// -n, else ours and then ingress-nginx's.
func (o *BackendsOptions) lookupNamespaces() []string {
	var out []string
	for _, q := range o.podQueries() {
		if !slices.Contains(out, q.Namespace) {
			out = append(out, q.Namespace)
		}
	}
	return out
}

// Validate checks the flags.
func (o *BackendsOptions) Validate() error {
	printer, err := backendsPrinter(o.printFlags, o.Output, o.outputSet, o.NoHeaders)
	if err != nil {
		return err
	}
	o.printer = printer
	if o.List && o.Backend != "" {
		return fmt.Errorf("--list and --backend cannot both be given")
	}
	return o.validateTarget()
}

// validateTarget checks the flags of addTargetFlags.
func (o *BackendsOptions) validateTarget() error {
	chosen := []string{}
	for _, f := range []struct {
		name string
		set  bool
	}{{"--pod", o.Pod != ""}, {"-l/--selector", o.Selector != ""}, {"--deployment", o.deploymentSet}, {"--url", o.URL != ""}} {
		if f.set {
			chosen = append(chosen, f.name)
		}
	}
	if len(chosen) > 1 {
		return fmt.Errorf("give one of --pod, -l, --deployment and --url, not %s", strings.Join(chosen, " and "))
	}
	if o.URL != "" {
		u, err := url.Parse(o.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--url must be an http:// or https:// URL such as http://127.0.0.1:10246, got %q", o.URL)
		}
		if o.AllPods {
			return fmt.Errorf("--all-pods asks the pods of the cluster; it cannot be combined with --url")
		}
	}
	if o.StatusPort < 1 || o.StatusPort > 65535 {
		return fmt.Errorf("--status-port must be between 1 and 65535, got %d", o.StatusPort)
	}
	return nil
}

// Run asks the pod(s) and prints the answer.
func (o *BackendsOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.URL != "" {
		all, err := o.ask(ctx, nil)
		var shown []backendInfo
		if err == nil {
			shown, err = o.filter(all)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", o.URL, err)
		}
		return o.print(shown, all)
	}
	pods, q, err := findPodsOf(ctx, o.clientset, o.queries)
	o.query = q
	if err != nil {
		return err
	}
	if o.AllPods {
		return o.runAllPods(ctx, pods)
	}
	pod, err := choosePod(pods, o.Container)
	if err != nil {
		return err
	}
	all, err := o.ask(ctx, pod)
	var shown []backendInfo
	if err == nil {
		shown, err = o.filter(all)
	}
	if err != nil {
		return fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return o.print(shown, all)
}

// ask opens the way to the status server of pod (nil with --url), and
// returns its backends.
func (o *BackendsOptions) ask(ctx context.Context, pod *corev1.Pod) ([]backendInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	a, err := o.askStatus(ctx, pod, luaapi.PathBackends, nil, maxBackendsAnswer)
	if err != nil {
		return nil, err
	}
	if a.status != http.StatusOK {
		return nil, a.unexpected()
	}
	backends, err := decodeBackends(a.body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", luaapi.PathBackends, err)
	}
	return backends, nil
}

func (o *BackendsOptions) filter(backends []backendInfo) ([]backendInfo, error) {
	if o.Backend == "" {
		return backends, nil
	}
	for _, b := range backends {
		if b.wire.Name == o.Backend {
			return []backendInfo{b}, nil
		}
	}
	return nil, fmt.Errorf("no backend %q among the %d backends (kubectl ingress backends --list names them)", o.Backend, len(backends))
}

// print writes the backends shown; all are every backend of the status
// server.
func (o *BackendsOptions) print(shown, all []backendInfo) error {
	if len(shown) == 0 && (o.Output == outputTable || o.Output == outputWide) {
		_, err := fmt.Fprintln(o.ErrOut, "No backends.")
		return err
	}
	if o.printer != nil {
		list, err := backendList(shown)
		if err != nil {
			return err
		}
		return printError(o.printer.PrintObj(list, o.Out))
	}
	return printBackends(o.Out, o.Output, shown, all, o.Backend != "", o.NoHeaders)
}

// askStatus opens the way to the status server of pod (nil with --url)
// and sends it GET path?query (getStatus).
func (o *BackendsOptions) askStatus(ctx context.Context, pod *corev1.Pod, path string, query url.Values, limit int) (statusAnswer, error) {
	base, closeFn, err := o.dialer.Open(ctx, pod)
	if err != nil {
		return statusAnswer{}, err
	}
	a, err := getStatus(ctx, o.http, base, path, query, limit)
	if cerr := closeFn(); err != nil && cerr != nil {
		// What the way there reported is the cause; the failed request
		// only its symptom.
		return statusAnswer{}, fmt.Errorf("port-forward failed: %v (%w)", cerr, err)
	}
	return a, err
}

// onePod is the pod to ask for a command that asks one (nil with --url),
// and how its errors name it: the URL, or "pod NAMESPACE/NAME".
func (o *BackendsOptions) onePod(ctx context.Context) (*corev1.Pod, string, error) {
	if o.URL != "" {
		return nil, o.URL, nil
	}
	pods, _, err := findPodsOf(ctx, o.clientset, o.queries)
	if err != nil {
		return nil, "", err
	}
	pod, err := choosePod(pods, o.Container)
	if err != nil {
		return nil, "", err
	}
	return pod, "pod " + pod.Namespace + "/" + pod.Name, nil
}
