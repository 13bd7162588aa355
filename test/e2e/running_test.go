package e2e

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxrefuses"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// controllerOptions change what startFilesControllerWith and the cluster
// start functions give the controller.
type controllerOptions struct {
	// debounce is the files source's (0 for the command's default).
	debounce time.Duration
	// build, when set, replaces render.DefaultOptions().
	build *render.Options
	// seam turns the writer's test seam on (nginxrefuses.Seam): the
	// locations of nginxrefuses.Culprit's path get a line nginx -t
	// refuses; other Ingresses are written as always.
	seam bool
	// problems, when set, is given every sync's Problems too (beside the
	// log or the Events).
	problems controller.ProblemReporter
	// routing is the nginx.conf writer's --routing; "" follows
	// KUBECTL_INGRESS_E2E_ROUTING (e2eRouting). A test of the classic
	// mode's own mechanics (how many reloads a change costs, nginx -t
	// refusing a location line) pins RoutingNginx: in Lua routing those
	// changes reload nothing and write no location.
	routing string
}

// classicControllerOptions are the options of startFilesController pinned
// to the classic writer (see controllerOptions.routing).
func classicControllerOptions() controllerOptions {
	return controllerOptions{debounce: 20 * time.Millisecond, routing: nginxconf.RoutingNginx}
}

// reporter is base, with o.problems told as well when set.
func (o controllerOptions) reporter(base controller.ProblemReporter) controller.ProblemReporter {
	if o.problems == nil {
		return base
	}
	return teeReporter{base, o.problems}
}

// teeReporter gives the Problems to each of its reporters in turn.
type teeReporter []controller.ProblemReporter

func (r teeReporter) ReportProblems(ctx context.Context, ps []model.Problem) {
	for _, each := range r {
		each.ReportProblems(ctx, ps)
	}
}

// buildOptions are o.build, else render.DefaultOptions().
func (o controllerOptions) buildOptions() render.Options {
	if o.build != nil {
		return *o.build
	}
	return render.DefaultOptions()
}

// conf is co with the seam applied when o asks for it.
func (o controllerOptions) conf(t testing.TB, co nginxconf.ConfOptions) nginxconf.ConfOptions {
	co.Routing = o.routing
	if co.Routing == "" {
		co.Routing = e2eRouting(t)
	}
	if o.seam {
		return nginxrefuses.Seam(co)
	}
	return co
}

// prepare lays out an nginx under a temporary prefix for a controller of
// a test, on free loopback ports, and returns its nginx.conf options (two
// workers). The controller's log goes to rc.logs.
func (rc *runningController) prepare(t testing.TB) nginxconf.ConfOptions {
	t.Helper()
	rc.httpPort, rc.logs = freePort(t), &syncBuffer{}
	co := nginxconf.DefaultConfOptions()
	co.ListenAddress = "127.0.0.1"
	co.HTTPPort, co.HTTPSPort = rc.httpPort, freePort(t)
	rc.httpsPort = co.HTTPSPort
	co.StatusAddress = "127.0.0.1:" + strconv.Itoa(freePort(t))
	rc.statusAddr = co.StatusAddress
	co.WorkerProcesses = "2"
	rc.inst = nginx.New(filepath.Join(t.TempDir(), "nginx"), nginx.Options{StatusURL: "http://" + co.StatusAddress})
	if err := rc.inst.Layout(); err != nil {
		t.Fatal(err)
	}
	return co
}

// logContext is a context whose logger writes to rc.logs, and its cancel.
func (rc *runningController) logContext() (context.Context, context.CancelFunc) {
	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(1), textlogger.Output(rc.logs)))
	return context.WithCancel(klog.NewContext(context.Background(), logger))
}

// run makes the controller of cfg with rc's nginx (as Nginx and Stream)
// and its Lua endpoint, and runs it on ctx until the test ends, then
// cancels and waits for Run (an error fails the test), prints the log of
// a failed test and checks nginx's error.log for Lua errors. It returns
// once nginx serves the first config. A rejected config is tried again
// only after a change: the retry backoff is an hour.
func (rc *runningController) run(t testing.TB, ctx context.Context, cancel context.CancelFunc, cfg controller.Config, readyTimeout time.Duration) {
	t.Helper()
	cfg.Nginx, cfg.Stream = rc.inst, rc.inst
	cfg.Files = controller.NginxFiles{In: rc.inst}
	cfg.Lua = luaapi.NewClient("http://"+cfg.Conf.StatusAddress, &http.Client{Timeout: 10 * time.Second})
	cfg.RetryBase = time.Hour
	if cfg.StopTimeout == 0 {
		// nginx's graceful quit waits for the connections a test's
		// clients still hold open; the controller must force it (after
		// StopTimeout) well before the cleanup below stops waiting for
		// Run (30 s), or a test whose traffic ended mid-request fails
		// with "the controller did not stop".
		cfg.StopTimeout = 10 * time.Second
	}
	var err error
	if rc.c, err = controller.New(cfg); err != nil {
		cancel()
		t.Fatal(err)
	}
	runErr := make(chan error, 1)
	go func() { runErr <- rc.c.Run(ctx) }()
	t.Cleanup(func() {
		// The test's idle keep-alive connections, and any spare one its
		// transport dialed and never used, would hold nginx's graceful stop
		// until their client_header_timeout: nginx closes only connections
		// that served a request and wait for the next.
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		cancel()
		select {
		case err := <-runErr:
			if err != nil {
				t.Errorf("controller: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("the controller did not stop")
		}
		if t.Failed() {
			t.Logf("controller log:\n%s", rc.logs.String())
		}
		checkLuaErrors(t, filepath.Join(rc.inst.Prefix(), "logs", "error.log"))
	})
	waitFor(t, readyTimeout, "nginx to serve the first config", rc.c.Ready)
}

// breakNginxTest makes nginx -t fail for any new nginx.conf while the
// running nginx keeps serving, and returns the repair: nginx -t opens the
// error log, whose path becomes a directory; the running nginx keeps
// writing to the file it opened, moved aside meanwhile.
func breakNginxTest(t testing.TB, inst *nginx.Instance) (repair func()) {
	t.Helper()
	logFile := filepath.Join(inst.Prefix(), "logs", "error.log")
	aside := logFile + ".aside"
	if err := os.Rename(logFile, aside); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(logFile, 0o755); err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		if err := os.Remove(logFile); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(aside, logFile); err != nil {
			t.Fatal(err)
		}
	}
}
