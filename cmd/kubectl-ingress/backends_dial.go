package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
	"k8s.io/klog/v2"
)

// defaultStatusPort is the port of the status server (the Lua HTTP API)
// inside a controller pod, ours and ingress-nginx's.
const defaultStatusPort = 10246

// statusDialer reaches the status server of a controller pod. Open returns
// the base URL to send requests to and a function that closes the way
// there; close returns what went wrong on the way while it was open (a
// port-forward that the kubelet refused, say), or nil.
type statusDialer interface {
	Open(ctx context.Context, pod *corev1.Pod) (baseURL string, close func() error, err error)
}

// clusterClients makes, from the kubeconfig flags, what a command needs from
// the cluster: a clientset and a dialer. Tests replace them with fakes.
type clusterClients struct {
	clientset func(genericclioptions.RESTClientGetter) (kubernetes.Interface, error)
	dialer    func(g genericclioptions.RESTClientGetter, remotePort int) (statusDialer, error)
}

// defaultClusterClients talks to the cluster of the kubeconfig.
func defaultClusterClients() clusterClients {
	return clusterClients{
		clientset: func(g genericclioptions.RESTClientGetter) (kubernetes.Interface, error) {
			if cf, ok := g.(*genericclioptions.ConfigFlags); ok {
				// Never client-go's fallback to localhost:8080.
				if err := requireKubeconfig(cf); err != nil {
					return nil, err
				}
			}
			cfg, err := g.ToRESTConfig()
			if err != nil {
				return nil, fmt.Errorf("cluster configuration: %w", err)
			}
			return kubernetes.NewForConfig(cfg)
		},
		dialer: func(g genericclioptions.RESTClientGetter, remotePort int) (statusDialer, error) {
			cfg, err := g.ToRESTConfig()
			if err != nil {
				return nil, fmt.Errorf("cluster configuration: %w", err)
			}
			return newPortForwardDialer(cfg, remotePort)
		},
	}
}

// urlDialer is --url: a status server reached directly.
type urlDialer struct{ url string }

func (d urlDialer) Open(context.Context, *corev1.Pod) (string, func() error, error) {
	return d.url, func() error { return nil }, nil
}

// portForwardDialer forwards a loopback port of this machine to the status
// port of the pod through the API server (SPDY), as kubectl port-forward
// does, so that nothing but the API server is needed.
type portForwardDialer struct {
	config     *rest.Config
	restClient rest.Interface
	remotePort int
}

func newPortForwardDialer(cfg *rest.Config, remotePort int) (*portForwardDialer, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("cluster client: %w", err)
	}
	return &portForwardDialer{config: cfg, restClient: cs.CoreV1().RESTClient(), remotePort: remotePort}, nil
}

// Open starts the port-forward and returns once its local port listens.
func (d *portForwardDialer) Open(ctx context.Context, pod *corev1.Pod) (string, func() error, error) {
	name := pod.Namespace + "/" + pod.Name
	transport, upgrader, err := spdy.RoundTripperFor(d.config)
	if err != nil {
		return "", nil, fmt.Errorf("port-forward to pod %s: %w", name, err)
	}
	target := d.restClient.Post().Resource("pods").Namespace(pod.Namespace).Name(pod.Name).SubResource("portforward").URL()
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, target)

	// The forwarder reports what fails once it runs (the kubelet could not
	// connect to the port, say) to the logger of its context: keep it.
	rec := &errorRecorder{}
	fctx, stop := context.WithCancel(klog.NewContext(context.Background(), logr.New(rec)))
	ready := make(chan struct{})
	fw, err := portforward.NewOnAddressesWithContext(fctx, dialer, []string{"127.0.0.1"},
		[]string{"0:" + strconv.Itoa(d.remotePort)}, ready, io.Discard, rec)
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("port-forward to pod %s: %w", name, err)
	}
	done := make(chan error, 1)
	go func() { done <- fw.ForwardPorts() }()
	select {
	case <-ready:
	case err := <-done:
		stop()
		if err == nil {
			err = errors.New("stopped before it was ready")
		}
		if more := rec.err(); more != nil {
			err = fmt.Errorf("%w (%v)", err, more)
		}
		return "", nil, fmt.Errorf("port-forward to pod %s port %d refused: %w", name, d.remotePort, err)
	case <-ctx.Done():
		stop()
		return "", nil, fmt.Errorf("port-forward to pod %s port %d: %w", name, d.remotePort, ctx.Err())
	}
	ports, err := fw.GetPorts()
	if err != nil || len(ports) == 0 {
		stop()
		return "", nil, fmt.Errorf("port-forward to pod %s: no local port: %v", name, err)
	}
	closeFn := func() error {
		stop()
		<-done
		return rec.err()
	}
	return "http://127.0.0.1:" + strconv.Itoa(int(ports[0].Local)), closeFn, nil
}

// errorRecorder is a logr sink that keeps the errors logged to it and
// drops everything else; as an io.Writer it keeps the lines written.
type errorRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *errorRecorder) Init(logr.RuntimeInfo)          {}
func (r *errorRecorder) Enabled(int) bool               { return false }
func (r *errorRecorder) Info(int, string, ...any)       {}
func (r *errorRecorder) WithValues(...any) logr.LogSink { return r }
func (r *errorRecorder) WithName(string) logr.LogSink   { return r }
func (r *errorRecorder) Error(err error, msg string, _ ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	text := msg
	if err != nil {
		text += ": " + err.Error()
	}
	r.msgs = append(r.msgs, text)
}

func (r *errorRecorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if line := strings.TrimSpace(string(p)); line != "" {
		r.msgs = append(r.msgs, line)
	}
	return len(p), nil
}

// err returns the errors logged so far, or nil. A failed copy between the
// local connection and the stream is what every other failure of the
// forward causes too, so it is reported only when nothing else was: the
// cause then reads the same whichever goroutine logged first.
func (r *errorRecorder) err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var causes, symptoms []string
	for _, m := range r.msgs {
		if strings.HasPrefix(m, "Error copying ") {
			symptoms = append(symptoms, m)
		} else {
			causes = append(causes, m)
		}
	}
	if len(causes) == 0 {
		causes = symptoms
	}
	if len(causes) == 0 {
		return nil
	}
	return errors.New(strings.Join(causes, "; "))
}
