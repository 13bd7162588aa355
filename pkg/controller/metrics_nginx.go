package controller

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/procfs"
)

// nginx's own gauges under ingress-nginx's names, read when /metrics is
// scraped: stub_status of the status server (connections and requests)
// and /proc of the nginx master and its children (CPU, memory, I/O).
// While no nginx runs, or its status does not answer, they are absent
// (as in ingress-nginx), never stale.

// nginxStatusTimeout bounds one GET of /nginx_status during a scrape.
const nginxStatusTimeout = 2 * time.Second

// NginxStatusPath is the stub_status location of the status server.
const NginxStatusPath = "/nginx_status"

// NginxPids is what the process collector needs of the nginx edge:
// *nginx.Instance implements it.
type NginxPids interface {
	// Pid is the master's, 0 when none runs.
	Pid() int
	// WorkerPids are the master's children.
	WorkerPids() ([]int, error)
}

// nginxStatusCollector scrapes stub_status.
type nginxStatusCollector struct {
	url                                 string
	hc                                  *http.Client
	connections, connectionsTotal, reqs *prometheus.Desc
}

func newNginxStatusCollector(id MetricsIdentity, statusAddress string) *nginxStatusCollector {
	name := func(n string) string { return ingressNginxNamespace + "_nginx_process_" + n }
	return &nginxStatusCollector{
		url: "http://" + statusAddress + NginxStatusPath,
		hc:  newStatusClient(),
		connections: prometheus.NewDesc(name("connections"),
			"Current client connections of nginx by state: active, reading, writing, waiting (stub_status).",
			[]string{"state"}, id.labels()),
		connectionsTotal: prometheus.NewDesc(name("connections_total"),
			"Client connections nginx accepted and handled since its master started (stub_status).",
			[]string{"state"}, id.labels()),
		reqs: prometheus.NewDesc(name("requests_total"),
			"Client requests nginx served since its master started (stub_status).",
			nil, id.labels()),
	}
}

func (c *nginxStatusCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.connections
	ch <- c.connectionsTotal
	ch <- c.reqs
}

func (c *nginxStatusCollector) Collect(ch chan<- prometheus.Metric) {
	s, err := c.fetch()
	if err != nil {
		return // no nginx: no series
	}
	gauge := func(v int64, state string) {
		ch <- prometheus.MustNewConstMetric(c.connections, prometheus.GaugeValue, float64(v), state)
	}
	gauge(s.Active, "active")
	gauge(s.Reading, "reading")
	gauge(s.Writing, "writing")
	gauge(s.Waiting, "waiting")
	ch <- prometheus.MustNewConstMetric(c.connectionsTotal, prometheus.CounterValue, float64(s.Accepted), "accepted")
	ch <- prometheus.MustNewConstMetric(c.connectionsTotal, prometheus.CounterValue, float64(s.Handled), "handled")
	ch <- prometheus.MustNewConstMetric(c.reqs, prometheus.CounterValue, float64(s.Requests))
}

func (c *nginxStatusCollector) fetch() (stubStatus, error) {
	ctx, cancel := context.WithTimeout(context.Background(), nginxStatusTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return stubStatus{}, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return stubStatus{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		return stubStatus{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return stubStatus{}, fmt.Errorf("%s: %s", c.url, resp.Status)
	}
	return parseStubStatus(string(body))
}

// stubStatus is what nginx's stub_status module answers.
type stubStatus struct {
	Active, Accepted, Handled, Requests, Reading, Writing, Waiting int64
}

var stubStatusRE = regexp.MustCompile(`^Active connections:\s*(\d+)\s*\n` +
	`server accepts handled requests\s*\n` +
	`\s*(\d+)\s+(\d+)\s+(\d+)\s*\n` +
	`Reading:\s*(\d+)\s+Writing:\s*(\d+)\s+Waiting:\s*(\d+)\s*$`)

// parseStubStatus reads stub_status's text; anything else is an error.
func parseStubStatus(text string) (stubStatus, error) {
	m := stubStatusRE.FindStringSubmatch(text)
	if m == nil {
		return stubStatus{}, fmt.Errorf("not a stub_status answer: %q", text)
	}
	var v [7]int64
	for i := range v {
		n, err := strconv.ParseInt(m[i+1], 10, 64)
		if err != nil {
			return stubStatus{}, err
		}
		v[i] = n
	}
	return stubStatus{Active: v[0], Accepted: v[1], Handled: v[2], Requests: v[3], Reading: v[4], Writing: v[5], Waiting: v[6]}, nil
}

// nginxProcessCollector sums /proc of the nginx master and its children
// (workers, cache manager): ingress-nginx's nginx_process_* group.
type nginxProcessCollector struct {
	pids                                                  NginxPids
	proc                                                  string // /proc
	numProcs, cpu, resident, virtual, start, read, writes *prometheus.Desc
}

func newNginxProcessCollector(id MetricsIdentity, pids NginxPids, procRoot string) *nginxProcessCollector {
	desc := func(n, help string) *prometheus.Desc {
		return prometheus.NewDesc(ingressNginxNamespace+"_nginx_process_"+n, help, nil, id.labels())
	}
	return &nginxProcessCollector{
		pids:     pids,
		proc:     procRoot,
		numProcs: desc("num_procs", "Number of nginx processes: the master and its children."),
		cpu:      desc("cpu_seconds_total", "CPU time (user and system) of the nginx processes, in seconds."),
		resident: desc("resident_memory_bytes", "Resident memory of the nginx processes, in bytes."),
		virtual:  desc("virtual_memory_bytes", "Virtual memory of the nginx processes, in bytes."),
		start:    desc("oldest_start_time_seconds", "Start time of the oldest nginx process (Unix time)."),
		read:     desc("read_bytes_total", "Bytes the nginx processes read from storage."),
		writes:   desc("write_bytes_total", "Bytes the nginx processes wrote to storage."),
	}
}

func (c *nginxProcessCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.numProcs, c.cpu, c.resident, c.virtual, c.start, c.read, c.writes} {
		ch <- d
	}
}

// processTotals are the sums over the nginx processes.
type processTotals struct {
	procs                 int
	cpu                   float64
	resident, virtual     float64
	oldest                float64
	readBytes, writeBytes float64
}

func (c *nginxProcessCollector) Collect(ch chan<- prometheus.Metric) {
	t, ok := c.totals()
	if !ok {
		return
	}
	send := func(d *prometheus.Desc, typ prometheus.ValueType, v float64) {
		ch <- prometheus.MustNewConstMetric(d, typ, v)
	}
	send(c.numProcs, prometheus.GaugeValue, float64(t.procs))
	send(c.cpu, prometheus.CounterValue, t.cpu)
	send(c.resident, prometheus.GaugeValue, t.resident)
	send(c.virtual, prometheus.GaugeValue, t.virtual)
	send(c.start, prometheus.GaugeValue, t.oldest)
	send(c.read, prometheus.CounterValue, t.readBytes)
	send(c.writes, prometheus.CounterValue, t.writeBytes)
}

// totals reads the master and its children; false when no master runs or
// /proc is not there (not Linux).
func (c *nginxProcessCollector) totals() (processTotals, bool) {
	master := c.pids.Pid()
	if master == 0 {
		return processTotals{}, false
	}
	fs, err := procfs.NewFS(c.proc)
	if err != nil {
		return processTotals{}, false
	}
	children, _ := c.pids.WorkerPids()
	var t processTotals
	for _, pid := range append([]int{master}, children...) {
		p, err := fs.Proc(pid)
		if err != nil {
			continue // exited meanwhile
		}
		st, err := p.Stat()
		if err != nil {
			continue
		}
		t.procs++
		t.cpu += st.CPUTime()
		t.resident += float64(st.ResidentMemory())
		t.virtual += float64(st.VirtualMemory())
		if start, err := st.StartTime(); err == nil && (t.oldest == 0 || start < t.oldest) {
			t.oldest = start
		}
		// /proc/PID/io needs the same user (or CAP_SYS_PTRACE): a
		// master started as root with workers as nobody still counts.
		if io, err := p.IO(); err == nil {
			t.readBytes += float64(io.ReadBytes)
			t.writeBytes += float64(io.WriteBytes)
		}
	}
	return t, t.procs > 0
}

// addNginxCollectors registers nginx's gauges: stub_status always, /proc
// when n tells its pids.
func (m *loopMetrics) addNginxCollectors(id MetricsIdentity, n Nginx, statusAddress string) {
	m.registry.MustRegister(newNginxStatusCollector(id, statusAddress))
	if pids, ok := n.(NginxPids); ok {
		m.registry.MustRegister(newNginxProcessCollector(id, pids, procfs.DefaultMountPoint))
	}
}

// newStatusClient is the HTTP client of the scrape-time reads of nginx's
// status server. It keeps no connection between scrapes: Go's transport
// parks a connection it dialled for a request that another connection
// served, and nginx's graceful stop waits for such a connection (it never
// sent a request) until client_header_timeout, 60 s.
func newStatusClient() *http.Client {
	return &http.Client{Timeout: nginxStatusTimeout, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
}
