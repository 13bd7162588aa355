package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/admission"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// WebhookFlags are the flags of the validating admission webhook, named as
// ingress-nginx has them. It runs in cluster mode only.
type WebhookFlags struct {
	// Address is host:port to serve on; "" turns the webhook off.
	Address     string
	Certificate string
	Key         string
	// Strict also denies a backend Service (or port) that does not exist,
	// and an Ingress whose config nginx -t refuses on a line it wrote.
	Strict bool

	// nginxTest is how Strict runs nginx -t (useNginx).
	nginxTest webhookNginxTest
}

// webhookNginxTest is the nginx the webhook's nginx -t runs: its binary
// and the controller's nginx.conf options.
type webhookNginxTest struct {
	binary string
	conf   nginxconf.ConfOptions
	set    bool
}

// useNginx makes the Strict webhook run nginx -t with binary on configs
// written with conf (the controller's options).
func (f *WebhookFlags) useNginx(binary string, conf nginxconf.ConfOptions) {
	f.nginxTest = webhookNginxTest{binary: binary, conf: conf, set: true}
}

// AddFlags registers the flags.
func (f *WebhookFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Address, "validating-webhook", f.Address, `Serve the validating admission webhook for Ingresses over TLS on this address (e.g. ":8443"; the path ingress-nginx uses is `+admission.Path+`, any path is answered); "" for none`)
	fs.StringVar(&f.Certificate, "validating-webhook-certificate", f.Certificate, "PEM certificate (chain) of the validating webhook; read again when the file changes")
	fs.StringVar(&f.Key, "validating-webhook-key", f.Key, "PEM private key of the validating webhook; read again when the file changes")
	fs.BoolVar(&f.Strict, "strict", f.Strict, "The validating webhook also denies an Ingress whose backend Service or port does not exist (otherwise a warning), and one whose config nginx -t refuses on a line that Ingress wrote (the controller would quarantine it; one nginx -t at a time in a throwaway prefix, at most 5 s a review; a test that cannot run admits with a warning)")
	_ = cobra.MarkFlagFilename(fs, "validating-webhook-certificate", "pem", "crt")
	_ = cobra.MarkFlagFilename(fs, "validating-webhook-key", "pem", "key")
}

// Validate checks the flags; cluster is false for --from-files.
func (f *WebhookFlags) Validate(cluster bool) error {
	if f.Address == "" {
		if f.Strict || f.Certificate != "" || f.Key != "" {
			return errors.New("--strict, --validating-webhook-certificate and --validating-webhook-key need --validating-webhook")
		}
		return nil
	}
	if !cluster {
		return errors.New("--validating-webhook needs a cluster: with --from-files no API server calls it (run kubectl ingress render to see the problems of manifest files)")
	}
	if _, _, err := net.SplitHostPort(f.Address); err != nil {
		return fmt.Errorf("--validating-webhook %q: want host:port or :port: %w", f.Address, err)
	}
	if f.Certificate == "" || f.Key == "" {
		return errors.New("--validating-webhook needs --validating-webhook-certificate and --validating-webhook-key (the API server calls webhooks over TLS only)")
	}
	return nil
}

// webhookSource is what the webhook needs of the controller's Source.
type webhookSource interface {
	WaitForSync(ctx context.Context) bool
	Snapshot() (render.Snapshot, error)
}

// around returns serve extended with the webhook, when it is on: it
// listens at once (a taken port or a bad certificate fails the start).
func (f *WebhookFlags) around(src webhookSource, opts render.Options, serve func(context.Context) error) (func(context.Context) error, error) {
	srv, v, err := f.listen(src, opts)
	if err != nil || srv == nil {
		return serve, err
	}
	cleanup, err := f.attachNginxTest(v)
	if err != nil {
		return serve, errors.Join(err, srv.Close())
	}
	inner := withWebhook(srv, v, src, serve)
	return func(ctx context.Context) error {
		defer cleanup()
		return inner(ctx)
	}, nil
}

// attachNginxTest gives a Strict webhook its nginx -t: an nginx laid out
// under a throwaway prefix of its own (no running nginx uses it), removed
// by cleanup.
func (f *WebhookFlags) attachNginxTest(v *admission.Validator) (cleanup func(), err error) {
	if !f.Strict || !f.nginxTest.set {
		return func() {}, nil
	}
	dir, err := os.MkdirTemp("", "kubectl-ingress-webhook-nginx-")
	if err != nil {
		return nil, fmt.Errorf("validating webhook: nginx -t prefix: %w", err)
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	in := nginx.New(dir, nginx.Options{Binary: f.nginxTest.binary})
	if err := in.Layout(); err != nil {
		cleanup()
		return nil, fmt.Errorf("validating webhook: nginx -t prefix: %w", err)
	}
	v.WithNginxCheck(admission.NginxCheck{Tester: nginxConfTester{in: in}, Conf: f.nginxTest.conf})
	return cleanup, nil
}

// nginxConfTester is the admission.ConfTester of pkg/nginx.
type nginxConfTester struct{ in *nginx.Instance }

func (t nginxConfTester) TestConf(ctx context.Context, conf []byte, files []model.File) (*admission.TestFailure, error) {
	// The files of an earlier review stay: a file name is the same
	// content (its Secret's UID and the content's digest, or a stable
	// htpasswd name rewritten here), and they live only in this prefix.
	if err := t.in.WriteFiles(ctx, controller.ToNginxFiles(files)); err != nil {
		return nil, err
	}
	err := t.in.Test(ctx, conf)
	var te *nginx.TestError
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &te):
		return &admission.TestFailure{Message: te.Message, Line: te.Line}, nil
	}
	return nil, err
}

// listen makes the webhook's server and its Validator; nil when the
// webhook is off.
func (f *WebhookFlags) listen(src webhookSource, opts render.Options) (*admission.Server, *admission.Validator, error) {
	if f.Address == "" {
		return nil, nil, nil
	}
	v, err := admission.NewValidator(src.Snapshot, opts, f.Strict)
	if err != nil {
		return nil, nil, err
	}
	srv, err := admission.Listen(f.Address, f.Certificate, f.Key, admission.NewHandler(v))
	return srv, v, err
}

// withWebhook runs serve and the webhook's server srv together: the webhook
// answers once src has synced (its Snapshot is the cluster then) and v has
// indexed it, and stops with serve's context. When either fails, both stop.
func withWebhook(srv *admission.Server, v *admission.Validator, src webhookSource, serve func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		errs := make(chan error, 2)
		go func() {
			errs <- serve(ctx)
			cancel()
		}()
		go func() {
			defer cancel()
			if !src.WaitForSync(ctx) {
				errs <- srv.Close()
				return
			}
			if err := v.Prime(); err != nil {
				klog.FromContext(ctx).Error(err, "Indexing the cluster for the validating webhook; the first review will")
			}
			errs <- srv.Serve(ctx)
		}()
		return errors.Join(<-errs, <-errs)
	}
}
