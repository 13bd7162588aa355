package controller

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/procfs"
)

const stubText = "Active connections: 3 \nserver accepts handled requests\n 17 16 42 \nReading: 0 Writing: 1 Waiting: 2 \n"

func TestParseStubStatus(t *testing.T) {
	got, err := parseStubStatus(stubText)
	if err != nil {
		t.Fatal(err)
	}
	if want := (stubStatus{Active: 3, Accepted: 17, Handled: 16, Requests: 42, Reading: 0, Writing: 1, Waiting: 2}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for _, bad := range []string{"", "<html>404</html>", strings.Replace(stubText, "42", "x", 1), "Active connections: 3\n"} {
		if _, err := parseStubStatus(bad); err == nil {
			t.Errorf("parseStubStatus(%q) succeeded", bad)
		}
	}
}

func TestNginxStatusCollector(t *testing.T) {
	answer := stubText
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != NginxStatusPath {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, answer)
	}))
	defer srv.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(newNginxStatusCollector(testIdentity, strings.TrimPrefix(srv.URL, "http://")))
	want := `# HELP nginx_ingress_controller_nginx_process_connections x
# TYPE nginx_ingress_controller_nginx_process_connections gauge
nginx_ingress_controller_nginx_process_connections{` + testConst + `,state="active"} 3
nginx_ingress_controller_nginx_process_connections{` + testConst + `,state="reading"} 0
nginx_ingress_controller_nginx_process_connections{` + testConst + `,state="waiting"} 2
nginx_ingress_controller_nginx_process_connections{` + testConst + `,state="writing"} 1
# HELP nginx_ingress_controller_nginx_process_connections_total x
# TYPE nginx_ingress_controller_nginx_process_connections_total counter
nginx_ingress_controller_nginx_process_connections_total{` + testConst + `,state="accepted"} 17
nginx_ingress_controller_nginx_process_connections_total{` + testConst + `,state="handled"} 16
# HELP nginx_ingress_controller_nginx_process_requests_total x
# TYPE nginx_ingress_controller_nginx_process_requests_total counter
nginx_ingress_controller_nginx_process_requests_total{` + testConst + `} 42
`
	if err := compareGathered(helpless{reg}, want); err != nil {
		t.Error(err)
	}
	// nginx answers something else, or not at all: no series.
	answer = "not a status"
	if err := compareGathered(helpless{reg}, ""); err != nil {
		t.Error(err)
	}
	srv.Close()
	if err := compareGathered(helpless{reg}, ""); err != nil {
		t.Error(err)
	}
}

type fakePids struct {
	master   int
	children []int
}

func (f fakePids) Pid() int                   { return f.master }
func (f fakePids) WorkerPids() ([]int, error) { return f.children, nil }

// TestNginxProcessCollector sums /proc of "nginx" processes: here this
// test process counted twice as master and child, so every sum is twice
// one process's and the oldest start is its start.
func TestNginxProcessCollector(t *testing.T) {
	fs, err := procfs.NewFS(procfs.DefaultMountPoint)
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	self := os.Getpid()
	c := newNginxProcessCollector(testIdentity, fakePids{master: self, children: []int{self, 1 << 30}}, procfs.DefaultMountPoint)
	tot, ok := c.totals()
	if !ok {
		t.Fatal("no totals for a running process")
	}
	p, _ := fs.Proc(self)
	st, err := p.Stat()
	if err != nil {
		t.Fatal(err)
	}
	start, _ := st.StartTime()
	if tot.procs != 2 || tot.virtual < 2*float64(st.VirtualMemory())*0.5 || tot.resident <= 0 || tot.oldest != start || tot.cpu < 0 {
		t.Errorf("totals %+v for twice a process with stat %+v", tot, st)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fams {
		names = append(names, f.GetName()+":"+f.GetType().String())
	}
	want := "nginx_ingress_controller_nginx_process_cpu_seconds_total:COUNTER nginx_ingress_controller_nginx_process_num_procs:GAUGE " +
		"nginx_ingress_controller_nginx_process_oldest_start_time_seconds:GAUGE nginx_ingress_controller_nginx_process_read_bytes_total:COUNTER " +
		"nginx_ingress_controller_nginx_process_resident_memory_bytes:GAUGE nginx_ingress_controller_nginx_process_virtual_memory_bytes:GAUGE " +
		"nginx_ingress_controller_nginx_process_write_bytes_total:COUNTER"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("families\n%s\nwant\n%s", got, want)
	}
	// No master: no series.
	c.pids = fakePids{}
	if err := compareGathered(helpless{reg}, ""); err != nil {
		t.Error(err)
	}
}
