package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// statusShutdownTimeout bounds the clearing of the status at shutdown.
const statusShutdownTimeout = 20 * time.Second

// StatusFlags are the flags of leader election and Ingress status, named
// as ingress-nginx has them. They apply in cluster mode only.
type StatusFlags struct {
	UpdateStatus           bool
	UpdateStatusOnShutdown bool
	PublishService         string
	PublishStatusAddress   string
	// StatusUpdateInterval is --status-update-interval, in seconds.
	StatusUpdateInterval int

	ElectionID        string
	ElectionNamespace string
	ElectionTTL       time.Duration
}

// NewStatusFlags returns ingress-nginx's defaults.
func NewStatusFlags() StatusFlags {
	return StatusFlags{
		UpdateStatus:           true,
		UpdateStatusOnShutdown: true,
		StatusUpdateInterval:   int(controller.DefaultStatusResync / time.Second),
		ElectionID:             controller.DefaultElectionID,
		ElectionTTL:            controller.DefaultElectionTTL,
	}
}

// AddFlags registers the flags.
func (f *StatusFlags) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&f.UpdateStatus, "update-status", f.UpdateStatus, "Write the published addresses to status.loadBalancer.ingress of the Ingresses this controller serves (the leader of --election-id does)")
	fs.BoolVar(&f.UpdateStatusOnShutdown, "update-status-on-shutdown", f.UpdateStatusOnShutdown, "On SIGTERM, the leader clears the status of the Ingresses it serves before giving up the lease, unless other replicas (pods with its labels) remain")
	fs.StringVar(&f.PublishService, "publish-service", f.PublishService, "namespace/name of the Service whose addresses go to the Ingresses' status (a LoadBalancer's IPs or hostnames and externalIPs)")
	fs.StringVar(&f.PublishStatusAddress, "publish-status-address", f.PublishStatusAddress, "Comma-separated IPs or hostnames to put in the Ingresses' status (instead of --publish-service; without either, the addresses of the nodes that run the controller's pods)")
	fs.IntVar(&f.StatusUpdateInterval, "status-update-interval", f.StatusUpdateInterval, "Seconds between two full checks of the Ingresses' status by the leader")
	fs.StringVar(&f.ElectionID, "election-id", f.ElectionID, "Name of the coordination.k8s.io Lease the replicas elect the status writer with")
	fs.StringVar(&f.ElectionNamespace, "election-namespace", f.ElectionNamespace, "Namespace of the --election-id Lease; default $POD_NAMESPACE")
	fs.DurationVar(&f.ElectionTTL, "election-ttl", f.ElectionTTL, "Duration of the leader's lease: another replica takes over within it when the leader dies (it renews within half, candidates retry every quarter)")
}

// Validate checks the flags; cluster is false for --from-files.
func (f *StatusFlags) Validate(cluster bool) error {
	if f.PublishService != "" && (strings.Count(f.PublishService, "/") != 1 || strings.HasPrefix(f.PublishService, "/") || strings.HasSuffix(f.PublishService, "/")) {
		return fmt.Errorf("--publish-service must be namespace/name, got %q", f.PublishService)
	}
	if !cluster {
		if f.PublishService != "" || f.PublishStatusAddress != "" {
			return errors.New("--publish-service and --publish-status-address apply in a cluster only, not with --from-files")
		}
		return nil
	}
	switch {
	case f.PublishService != "" && f.PublishStatusAddress != "":
		return errors.New("--publish-service and --publish-status-address are mutually exclusive")
	case f.StatusUpdateInterval <= 0:
		return fmt.Errorf("--status-update-interval must be positive, got %d", f.StatusUpdateInterval)
	case f.ElectionTTL <= 0:
		return fmt.Errorf("--election-ttl must be positive, got %v", f.ElectionTTL)
	}
	if f.PublishStatusAddress != "" {
		if _, err := controller.ParseStatusAddresses(f.PublishStatusAddress); err != nil {
			return err
		}
	}
	return nil
}

// statusDuties are the controller's in-cluster duties, nil when there are
// none (--from-files, --update-status=false); its methods accept nil.
type statusDuties struct {
	d *controller.StatusDuties
}

// duties makes leader election and the status writer for a cluster
// source; for any other source, or with --update-status=false, none.
func (f *StatusFlags) duties(src controller.Source, build render.Options) (*statusDuties, error) {
	cs, ok := src.(*controller.ClusterSource)
	if !ok || !f.UpdateStatus {
		return nil, nil
	}
	podNamespace, podName := os.Getenv("POD_NAMESPACE"), os.Getenv("POD_NAME")
	identity := podName
	if identity == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("leader election identity: POD_NAME is unset and %w", err)
		}
		identity = h
	}
	namespace := f.ElectionNamespace
	if namespace == "" {
		namespace = podNamespace
	}
	if namespace == "" {
		return nil, errors.New("leader election needs the Lease's namespace: set POD_NAMESPACE (the deploy manifests do) or --election-namespace, or turn the status off with --update-status=false")
	}
	elector, err := controller.NewElector(controller.ElectorConfig{
		Client:    cs.Client(),
		Namespace: namespace,
		Name:      f.ElectionID,
		Identity:  identity,
		// RenewDeadline and RetryPeriod follow from it (NewElector).
		LeaseDuration: f.ElectionTTL,
		// ingress-nginx's leader_election_status carries these labels.
		MetricsIdentity: controller.MetricsIdentity{Namespace: podNamespace, Class: build.ControllerClass, Pod: podName},
	})
	if err != nil {
		return nil, err
	}
	addrs, err := controller.NewAddressSource(controller.AddressConfig{
		Client:         cs.Client(),
		StatusAddress:  f.PublishStatusAddress,
		PublishService: f.PublishService,
		PodNamespace:   podNamespace,
		PodName:        podName,
	})
	if err != nil {
		return nil, err
	}
	writer, err := controller.NewStatusWriter(controller.StatusConfig{
		Client:       cs.Client(),
		Source:       cs,
		Addresses:    addrs,
		Build:        build,
		ResyncPeriod: time.Duration(f.StatusUpdateInterval) * time.Second,
	})
	if err != nil {
		return nil, err
	}
	d := &controller.StatusDuties{Elector: elector, Writer: writer, UpdateStatusOnShutdown: f.UpdateStatusOnShutdown}
	if podNamespace != "" && podName != "" {
		d.OtherReplicas = controller.OtherReplicas(cs.Client(), podNamespace, podName)
	}
	return &statusDuties{d: d}, nil
}

// observers are the SyncObservers to add to controller.Config.Observers.
func (s *statusDuties) observers() []controller.SyncObserver {
	if s == nil {
		return nil
	}
	return []controller.SyncObserver{s.d.Writer}
}

// attach registers the leader metrics on the controller's registry.
func (s *statusDuties) attach(c *controller.Controller) error {
	if s == nil {
		return nil
	}
	return c.RegisterCollectors(s.d.Elector.Collectors()...)
}

// shutdownHooks stop leading and clear the status (when
// --update-status-on-shutdown) during a graceful shutdown: after /readyz
// turned 503 and --shutdown-grace-period passed, before nginx quits, the
// order ingress-nginx keeps.
func (s *statusDuties) shutdownHooks() []controller.ShutdownHook {
	if s == nil {
		return nil
	}
	return []controller.ShutdownHook{func(ctx context.Context) { s.shutdown(ctx) }}
}

// shutdown shuts the duties down (once: StatusDuties.Shutdown is
// idempotent), bounded by statusShutdownTimeout.
func (s *statusDuties) shutdown(ctx context.Context) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statusShutdownTimeout)
	defer cancel()
	// Logged, not returned: a graceful shutdown exits 0 all the same.
	if err := s.d.Shutdown(sctx); err != nil {
		klog.FromContext(ctx).Error(err, "Clearing the Ingress status at shutdown")
	}
}

// around starts the duties and runs run; when run returns without the
// graceful shutdown having run the hook (a fatal error), it shuts the
// duties down then, so that the lease is released either way.
func (s *statusDuties) around(ctx context.Context, run func() error) error {
	if s == nil {
		return run()
	}
	s.d.Start(ctx)
	err := run()
	s.shutdown(ctx)
	return err
}
