package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
)

const controllerLong = `Run the ingress controller: keep a child nginx equal to the Ingresses, Services, EndpointSlices,
Secrets, IngressClasses and the ConfigMap, reloading nginx only when nginx.conf changes and otherwise
posting backends and certificates to its Lua endpoint.

In a cluster (the default) the objects come from the API server (in-cluster config, or --kubeconfig
and --context). With --from-files DIR they come from the manifests under DIR (recursively) instead,
and the controller runs as a local simulator: nginx under a temporary prefix, listening on
127.0.0.1 unless --listen-address says otherwise. Editing a file applies it at once and logs the
plan: "reload required" or "dynamic only", with the reasons.

Every change is coalesced into one sync at most --sync-rate-limit times a second. A config that
nginx -t rejects is not loaded: the running one keeps serving, reload_errors_total counts it, and it
is tried again on the next change (or after a backoff). If the nginx master exits, the controller
starts it again, up to 3 times a minute; then it exits non-zero.

/healthz and /readyz (ready once nginx serves the first config) are served on --health-addr,
Prometheus metrics on --metrics-addr at /metrics (the same server when the addresses are equal),
and with --profiling Go's pprof under /debug/pprof/ on the metrics server. In a cluster, each
Problem is a Warning Event on its object, each reload a RELOAD Event on the controller's pod
(POD_NAMESPACE/POD_NAME), and each new or changed Ingress of the class a "Sync" Event.

The Go heap is collected at GOGC=50, half of Go's default: less memory for the model of a large
cluster; and at 20 while a whole build runs (the first config, a ConfigMap change), when the heap
peaks. The GOGC and GOMEMLIMIT environment variables, Go's own, win (GOGC then holds throughout).

In a cluster every replica serves traffic; the one holding the --election-id Lease (in
POD_NAMESPACE) writes status.loadBalancer.ingress of the Ingresses of its class: the addresses of
--publish-status-address, else of --publish-service, else of the nodes running the controller's
pods. It clears the status of Ingresses it served that left its class or lost their rules, and,
with --update-status-on-shutdown, of all of them when it stops as the last replica.

SIGINT or SIGTERM shuts down gracefully: /readyz answers 503 at once, nginx keeps serving for
--shutdown-grace-period seconds, then quits gracefully (requests in flight complete, within
--nginx-quit-timeout), and the controller exits 0 after --post-shutdown-grace-period seconds.
A second signal ends the controller at once.`

const controllerExample = `  # The local simulator on the shipped examples, with demo backends on their loopback endpoints
  kubectl ingress controller --from-files examples/ --http-port 8080 --https-port 8443 --demo-backends
  curl -H 'Host: blog.example.com' localhost:8080/blog/hello

  # In a cluster, with the kubeconfig's current context, watching one namespace
  kubectl ingress controller --watch-namespace team-a --publish-service ingress-nginx/ingress-nginx-controller`

// In-cluster defaults.
const (
	defaultNginxPrefix = "/etc/kubectl-ingress"
	defaultHealthAddr  = ":10254"
	// Loopback addresses of the local simulator.
	simulatorHealthAddr = "127.0.0.1:10254"
	simulatorListen     = "127.0.0.1"
)

// ControllerOptions are the flags of "kubectl ingress controller".
type ControllerOptions struct {
	Render   RenderFlags
	Shutdown ShutdownFlags
	Status   StatusFlags
	Webhook  WebhookFlags
	// RequestMetrics are ingress-nginx's request metrics flags.
	RequestMetrics RequestMetricsFlags
	// MaxMind downloads the GeoIP2 databases at start (flags_geoip2.go).
	MaxMind MaxMindDownloadFlags

	// FromFiles is the manifest directory of the local simulator.
	FromFiles string
	// Namespace is given to manifests that name none (--from-files).
	Namespace    string
	DemoBackends bool
	// MaxManifestSize is the largest manifest file read (--from-files).
	MaxManifestSize int64

	SyncRateLimit float64
	HealthAddr    string
	MetricsAddr   string
	NginxBinary   string
	NginxPrefix   string
	Verbosity     int

	// The cluster source.
	ConfigFlags    *genericclioptions.ConfigFlags
	WatchNamespace string

	// DisableSyncEvents turns off the "Sync" Events on Ingresses.
	DisableSyncEvents bool

	genericiooptions.IOStreams

	// set by clusterSource: the RELOAD and Sync Events
	eventObservers []controller.SyncObserver

	// set by Complete: Run makes a temporary prefix (and removes it)
	tempPrefix bool

	// compat are ingress-nginx's flags that we have none of our own for.
	compat compatFlags
	// showVersion is ingress-nginx's --version: print it and exit.
	showVersion bool
}

// NewControllerOptions returns the defaults.
func NewControllerOptions(streams genericiooptions.IOStreams) *ControllerOptions {
	cf := genericclioptions.NewConfigFlags(true)
	// The controller needs where the cluster is and who it is there, not
	// kubectl's per-command flags (it has --watch-namespace).
	cf.Namespace, cf.CacheDir, cf.Timeout, cf.DisableCompression = nil, nil, nil, nil
	cf.Impersonate, cf.ImpersonateUID, cf.ImpersonateGroup, cf.ImpersonateUserExtra = nil, nil, nil, nil
	cf.Username, cf.Password = nil, nil
	return &ControllerOptions{
		Render:        NewRenderFlags(),
		Shutdown:      NewShutdownFlags(),
		Status:        NewStatusFlags(),
		Namespace:     "default",
		SyncRateLimit: controller.DefaultSyncRate,
		HealthAddr:    defaultHealthAddr,
		MetricsAddr:   defaultHealthAddr,
		NginxBinary:   "nginx",
		NginxPrefix:   defaultNginxPrefix,
		ConfigFlags:   cf,
		IOStreams:     streams,

		MaxManifestSize: manifest.DefaultMaxFileSize,
	}
}

// NewCmdController builds "kubectl ingress controller".
func NewCmdController(streams genericiooptions.IOStreams) *cobra.Command {
	return newCmdController(NewControllerOptions(streams))
}

// newCmdController builds the command on o (the command tests set fields
// that no flag binds, as the writer's test seam).
func newCmdController(o *ControllerOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "controller [--from-files DIR]",
		Short:   "Run the ingress controller (in a cluster, or on manifest files as a local simulator)",
		Long:    controllerLong,
		Example: controllerExample,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.showVersion {
				return printVersion(o.Out)
			}
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
	o.Render.AddFlags(f)
	o.Shutdown.AddFlags(f)
	f.BoolVar(&o.DisableSyncEvents, "disable-sync-events", false, `In a cluster: make no "Sync" Events ("Scheduled for sync") on the Ingresses`)
	f.StringVar(&o.FromFiles, "from-files", "", "Run on the manifests under this directory (recursively) instead of a cluster: the local simulator")
	f.StringVar(&o.Namespace, "namespace", o.Namespace, "With --from-files: the namespace of objects whose manifests name none")
	addMaxManifestSize(f, &o.MaxManifestSize)
	f.BoolVar(&o.DemoBackends, "demo-backends", false, "With --from-files: answer on every loopback endpoint of the EndpointSlices that nothing listens on, with a small HTTP server that says which Service and endpoint it is")
	f.Float64Var(&o.SyncRateLimit, "sync-rate-limit", o.SyncRateLimit, "Syncs per second at most; changes that come meanwhile are coalesced into the next sync")
	f.StringVar(&o.HealthAddr, "health-addr", o.HealthAddr, `Address of /healthz and /readyz, "" for none; with --from-files the default is 127.0.0.1:10254`)
	f.StringVar(&o.MetricsAddr, "metrics-addr", o.MetricsAddr, `Address of /metrics (Prometheus); "" for none; the same as --health-addr serves both on one server`)
	f.StringVar(&o.NginxBinary, "nginx-binary", o.NginxBinary, "The nginx executable (with the Lua module); for the default, $"+envNginxBinary+", then nginx on PATH, then OpenResty's and Homebrew's usual places")
	f.StringVar(&o.NginxPrefix, "nginx-prefix", o.NginxPrefix, "nginx's prefix directory (nginx.conf, lua/, certs/, logs/); with --from-files, or outside a pod, the default is a new temporary directory, removed at exit")
	f.IntVarP(&o.Verbosity, "v", "v", 0, "Log verbosity: 1 lists each read of the files, 2 the syncs without change, 5 every file event")
	o.ConfigFlags.AddFlags(f)
	f.StringVar(&o.WatchNamespace, "watch-namespace", "", "Watch Ingresses, Services, EndpointSlices and Secrets of this namespace only; all when empty")
	o.Status.AddFlags(f)
	o.Webhook.AddFlags(f)
	o.RequestMetrics.AddFlags(f)
	o.MaxMind.AddFlags(f)
	// Last: ingress-nginx's flags that none of the above defines (a flag
	// added after this line with one of their names would be defined twice).
	o.compat.AddFlags(f)
	f.BoolVar(&o.showVersion, "version", false, "Print the version and exit (as ingress-nginx's controller)")
	_ = f.MarkHidden("version")
	return cmd
}

// Complete fills the defaults that depend on the mode.
func (o *ControllerOptions) Complete(cmd *cobra.Command) error {
	o.completeMode(cmd)
	// ingress-nginx's flags map onto ours once the mode's defaults are set.
	if cmd != nil {
		if err := o.compat.apply(o.ErrOut, flagSetTarget(cmd.Flags())); err != nil {
			return err
		}
	}
	o.reserveControllerPorts()
	return nil
}

// completeMode sets the defaults of the local simulator, and of a
// controller on a cluster run outside of it.
func (o *ControllerOptions) completeMode(cmd *cobra.Command) {
	if cmd == nil {
		return
	}
	changed := func(name string) bool { return cmd.Flags().Changed(name) }
	if o.FromFiles == "" {
		// as ingress-nginx: listeners on [::] too where the pod has IPv6
		// (the ConfigMap's disable-ipv6 turns them off)
		o.Render.ipv6 = podHasIPv6()
		if !changed("nginx-prefix") && !inCluster() {
			// On a laptop, not in a pod: never /etc.
			o.NginxPrefix, o.tempPrefix = "", true
		}
		return
	}
	// The files source reports the input it leaves out (Ingresses of other
	// classes, old API versions, an absent --configmap) as render does; on
	// a cluster those Ingresses are normal and get no Event.
	o.Render.ReportSkipped = true
	if !changed("listen-address") {
		o.Render.ListenAddress = simulatorListen
	}
	if !changed("health-addr") {
		o.HealthAddr = simulatorHealthAddr
	}
	o.pickFreeSimulatorPorts(changed)
	if !changed("metrics-addr") {
		o.MetricsAddr = o.HealthAddr
	}
	if !changed("nginx-prefix") {
		// Run makes the directory, and removes it when it returns.
		o.NginxPrefix, o.tempPrefix = "", true
	}
}

// reserveControllerPorts keeps TCP and UDP services off the ports this
// process serves (health, metrics, webhook), once the addresses are final.
func (o *ControllerOptions) reserveControllerPorts() {
	o.Render.ControllerPorts = addressPorts(o.HealthAddr, o.MetricsAddr, o.Webhook.Address)
}

// Validate checks the flags.
func (o *ControllerOptions) Validate() error {
	if err := o.Render.Validate(); err != nil {
		return err
	}
	if err := o.Shutdown.Validate(); err != nil {
		return err
	}
	if err := o.RequestMetrics.Validate(); err != nil {
		return err
	}
	if err := o.MaxMind.Validate(); err != nil {
		return err
	}
	if o.SyncRateLimit <= 0 {
		return fmt.Errorf("--sync-rate-limit must be positive, got %v", o.SyncRateLimit)
	}
	if o.NginxPrefix == "" && !o.tempPrefix {
		return errors.New("--nginx-prefix must not be empty")
	}
	if err := o.Status.Validate(o.FromFiles == ""); err != nil {
		return err
	}
	if err := o.Webhook.Validate(o.FromFiles == ""); err != nil {
		return err
	}
	if o.FromFiles != "" {
		fi, err := os.Stat(o.FromFiles)
		if err != nil {
			return fmt.Errorf("--from-files: %w", err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("--from-files: %s is not a directory", o.FromFiles)
		}
	} else if o.DemoBackends {
		return errors.New("--demo-backends needs --from-files: it is part of the local simulator")
	}
	return nil
}

// Run runs the controller until SIGINT or SIGTERM (a second one ends the
// process at once) or a fatal error.
func (o *ControllerOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := checkPorts(o.listenedPorts()); err != nil {
		return err
	}
	wholeBuildGC := setControllerGC(os.Getenv)
	// Which nginx, and where its modules are (nginx -V): Debian's,
	// OpenResty's, Homebrew's.
	found, err := detectNginx(ctx, o.NginxBinary)
	if err != nil {
		return err
	}
	found.apply(&o.Render)
	if err := found.check(o.Render.ModulesDir); err != nil {
		return err
	}
	o.NginxBinary = found.Binary
	if o.tempPrefix {
		dir, err := os.MkdirTemp("", "kubectl-ingress-nginx-")
		if err != nil {
			return fmt.Errorf("nginx prefix: %w", err)
		}
		o.NginxPrefix = dir
		defer os.RemoveAll(dir)
	}
	// The first SIGINT or SIGTERM starts the graceful shutdown; a second
	// one kills. The run's context ends only after the default handling
	// is back, so that nothing of the shutdown (/readyz turning 503 first)
	// can be seen before a second signal would kill.
	sigCtx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	go func() {
		select {
		case <-sigCtx.Done():
		case <-ctx.Done():
		}
		stop()
		cancelRun()
	}()
	// nginx's standard output and error go to the controller's (an access
	// log at /dev/stdout reaches `kubectl logs`), written one at a time
	// with the logger's
	stdout, stderr := &serialWriter{w: o.Out}, &serialWriter{w: o.ErrOut}
	log := textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(o.Verbosity), textlogger.Output(stderr)))
	ctx = klog.NewContext(ctx, log)

	// The GeoIP2 databases, before the first config reads them.
	o.MaxMind.download(ctx, o.Render.GeoIP2)
	src, reporter, err := o.source(ctx)
	if err != nil {
		return err
	}
	duties, err := o.Status.duties(src, o.Render.BuildOptions())
	if err != nil {
		return err
	}
	inst := nginx.New(o.NginxPrefix, nginx.Options{Binary: o.NginxBinary, StatusURL: "http://" + o.Render.StatusAddress, Stdout: stdout, Stderr: stderr})
	if err := inst.Layout(); err != nil {
		return err
	}
	cfg := controller.Config{
		Source:   src,
		Problems: reporter,
		Nginx:    inst,
		Lua:      luaapi.NewClient("http://"+o.Render.StatusAddress, &http.Client{Timeout: time.Minute, Transport: &http.Transport{Proxy: nil}}),
		Stream:   inst,
		Files:    controller.NginxFiles{In: inst},
		Build:    o.Render.BuildOptions(),
		Conf:     o.confOptions(),
		SyncRate: o.SyncRateLimit,
		// a lower GC target while a whole build runs (memory_gc.go)
		WholeBuildGCPercent: wholeBuildGC,
		// The labels of the metrics under ingress-nginx's names.
		MetricsIdentity: controller.MetricsIdentity{Namespace: os.Getenv("POD_NAMESPACE"), Pod: os.Getenv("POD_NAME")},
		RequestMetrics:  ptrTo(o.RequestMetrics.options()),
	}
	o.Shutdown.apply(&cfg)
	cfg.Observers = append(cfg.Observers, duties.observers()...)
	cfg.ShutdownHooks = append(cfg.ShutdownHooks, duties.shutdownHooks()...)
	cfg.Observers = append(cfg.Observers, o.eventObservers...)
	c, err := controller.New(cfg)
	if err != nil {
		return err
	}
	if err := duties.attach(c); err != nil {
		return err
	}
	serve, err := c.Listen(o.HealthAddr, o.MetricsAddr)
	if err != nil {
		return err
	}
	o.Webhook.useNginx(o.NginxBinary, o.confOptions())
	if serve, err = o.Webhook.around(src, o.Render.BuildOptions(), serve); err != nil {
		return err
	}
	log.Info("Starting the controller", "mode", o.mode(), "nginxPrefix", o.NginxPrefix,
		"http", fmt.Sprintf("%s:%d", o.Render.ListenAddress, o.Render.HTTPPort), "https", fmt.Sprintf("%s:%d", o.Render.ListenAddress, o.Render.HTTPSPort))
	return duties.around(ctx, func() error { return runAndServe(ctx, c, serve) })
}

func (o *ControllerOptions) mode() string {
	if o.FromFiles != "" {
		return "files " + o.FromFiles
	}
	return "cluster"
}

// source returns the Source and ProblemReporter of the mode.
func (o *ControllerOptions) source(ctx context.Context) (controller.Source, controller.ProblemReporter, error) {
	if o.FromFiles == "" {
		return o.clusterSource(ctx)
	}
	fs, err := controller.NewFileSource(o.FromFiles, controller.FileSourceOptions{DefaultNamespace: o.Namespace, MaxFileSize: o.MaxManifestSize})
	if err != nil {
		return nil, nil, err
	}
	if o.DemoBackends {
		return controller.WithDemoBackends(fs), controller.NewLogReporter(), nil
	}
	return fs, controller.NewLogReporter(), nil
}

// clusterSource is the seam of the cluster mode: the API server's
// informers (controller.NewClusterSource) and Events as the problem
// reporter, configured from the cluster flags.
func (o *ControllerOptions) clusterSource(ctx context.Context) (controller.Source, controller.ProblemReporter, error) {
	if err := requireKubeconfig(o.ConfigFlags); err != nil {
		return nil, nil, err
	}
	cfg, err := controller.NewRESTConfig(o.ConfigFlags, "kubectl-ingress/"+version)
	if err != nil {
		return nil, nil, err
	}
	if err := reachAPIServer(ctx, cfg); err != nil {
		return nil, nil, err
	}
	src, err := controller.NewClusterSource(controller.ClusterSourceConfig{
		Config:                cfg,
		Namespace:             o.WatchNamespace,
		ConfigMap:             o.Render.ConfigMap,
		DefaultSSLCertificate: o.Render.DefaultSSLCertificate,
		StreamConfigMaps:      []string{o.Render.TCPServicesConfigMap, o.Render.UDPServicesConfigMap},
	})
	if err != nil {
		return nil, nil, err
	}
	host := os.Getenv("POD_NAME")
	if host == "" {
		host, _ = os.Hostname()
	}
	events, err := controller.NewEvents(ctx, controller.EventsConfig{Client: src.Client(), Objects: src, Host: host})
	if err != nil {
		return nil, nil, err
	}
	pod := controller.PodReference(ctx, src.Client(), os.Getenv("POD_NAMESPACE"), os.Getenv("POD_NAME"))
	o.eventObservers = append(o.eventObservers, controller.NewReloadEvents(events.Recorder(), pod))
	if !o.DisableSyncEvents {
		o.eventObservers = append(o.eventObservers, controller.NewSyncEvents(events.Recorder(), o.Render.BuildOptions()))
	}
	return src, events, nil
}
