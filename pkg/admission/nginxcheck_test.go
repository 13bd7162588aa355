package admission

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// fakeConfTester refuses a config holding marker, naming the line of at
// ("" for the marker's own line, "-" for no line); it counts its tests
// and, when block is set, waits on it.
type fakeConfTester struct {
	marker, at string
	err        error
	block      chan struct{}
	// started, when not nil, is sent to (without blocking) as a test
	// begins.
	started chan struct{}
	mu      sync.Mutex
	tests   int
}

func (f *fakeConfTester) TestConf(ctx context.Context, conf []byte, _ []model.File) (*TestFailure, error) {
	f.mu.Lock()
	f.tests++
	f.mu.Unlock()
	select {
	case f.started <- struct{}{}:
	default:
	}
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if f.err != nil {
		return nil, f.err
	}
	if f.marker == "" || !bytes.Contains(conf, []byte(f.marker)) {
		return nil, nil
	}
	at := f.at
	if at == "" {
		at = f.marker
	}
	line := 0
	if i := bytes.Index(conf, []byte(at)); at != "-" && i >= 0 {
		line = bytes.Count(conf[:i], []byte("\n")) + 1
	}
	return &TestFailure{Message: "refused " + f.marker, Line: line}, nil
}

func (f *fakeConfTester) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tests
}

func checkedValidator(t *testing.T, s render.Snapshot, strict bool, tester ConfTester) *Validator {
	t.Helper()
	v, err := NewValidator(func() (render.Snapshot, error) { return s, nil }, render.DefaultOptions(), strict)
	if err != nil {
		t.Fatal(err)
	}
	return v.WithNginxCheck(NginxCheck{Tester: tester, Conf: nginxconf.DefaultConfOptions(), Timeout: 200 * time.Millisecond})
}

func problemStrings(ps []model.Problem) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return strings.Join(out, "; ")
}

func TestNginxCheck(t *testing.T) {
	shared := func() render.Snapshot {
		s := fixture()
		s.Ingresses = append(s.Ingresses, newIngress("neighbour", "b.example.com", "/n", "web", created(t0)))
		return s
	}
	for _, tc := range []struct {
		name      string
		strict    bool
		tester    *fakeConfTester
		cand      *networkingv1.Ingress
		deny      string // a denial holding this, "" for none
		warn      string // a warning holding this, "" for none
		wantTests int
	}{
		{
			name:   "the candidate's own location: denied with nginx's message",
			strict: true, tester: &fakeConfTester{marker: `"/bad/"`},
			cand:      newIngress("cand", "b.example.com", "/bad", "web"),
			deny:      `ingress default/cand: nginx -t: refused "/bad/" (host "b.example.com", location "/bad/")`,
			wantTests: 1,
		},
		{
			name:   "a line of another Ingress: a warning",
			strict: true, tester: &fakeConfTester{marker: `"/n/"`},
			cand:      newIngress("cand", "b.example.com", "/ok", "web"),
			warn:      "nginx -t refuses a line of ingress default/neighbour, not of this one",
			wantTests: 1,
		},
		{
			name:   "a server line of a shared host: a warning",
			strict: true, tester: &fakeConfTester{marker: `"/ok/"`, at: `server_name "b.example.com"`},
			cand:      newIngress("cand", "b.example.com", "/ok", "web"),
			warn:      `nginx -t refuses a line of host "b.example.com", which this Ingress shares with 1 other(s)`,
			wantTests: 1,
		},
		{
			name:   "no line: a warning",
			strict: true, tester: &fakeConfTester{marker: `"/ok/"`, at: "-"},
			cand:      newIngress("cand", "b.example.com", "/ok", "web"),
			warn:      "on a line of no Ingress",
			wantTests: 1,
		},
		{
			name:   "the test cannot run: a warning, admitted",
			strict: true, tester: &fakeConfTester{err: errors.New("exec: nginx: not found")},
			cand:      newIngress("cand", "b.example.com", "/ok", "web"),
			warn:      "nginx -t could not run",
			wantTests: 1,
		},
		{
			name:   "not Strict: no test",
			tester: &fakeConfTester{marker: `"/bad/"`},
			cand:   newIngress("cand", "b.example.com", "/bad", "web"),
		},
		{
			name:   "denied already: no test",
			strict: true, tester: &fakeConfTester{marker: `"/bad/"`},
			cand: newIngress("cand", "b.example.com", "/bad", "web", annotation("proxy-body-size", "a lot")),
			deny: "proxy-body-size",
		},
		{
			name:   "another class: no test",
			strict: true, tester: &fakeConfTester{marker: `"/bad/"`},
			cand: newIngress("cand", "b.example.com", "/bad", "web", className("other")),
		},
		{
			name:   "a config nginx accepts: admitted",
			strict: true, tester: &fakeConfTester{},
			cand:      newIngress("cand", "b.example.com", "/ok", "web"),
			wantTests: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := checkedValidator(t, shared(), tc.strict, tc.tester)
			verdict, err := v.ValidateContext(context.Background(), tc.cand, true)
			if err != nil {
				t.Fatal(err)
			}
			denials, warns := problemStrings(verdict.Denials), problemStrings(verdict.Warnings)
			if (tc.deny == "") != (denials == "") || !strings.Contains(denials, tc.deny) {
				t.Errorf("denials %q, want %q", denials, tc.deny)
			}
			if (tc.warn == "") != (warns == "") || !strings.Contains(warns, tc.warn) {
				t.Errorf("warnings %q, want %q", warns, tc.warn)
			}
			if n := tc.tester.count(); n != tc.wantTests {
				t.Errorf("%d nginx -t runs, want %d", n, tc.wantTests)
			}
		})
	}
}

// TestNginxCheckOneAtATime: a review waits for another's test at most the
// timeout, then is admitted with a warning.
func TestNginxCheckOneAtATime(t *testing.T) {
	tester := &fakeConfTester{block: make(chan struct{}), started: make(chan struct{}, 1)}
	v := checkedValidator(t, fixture(), true, tester)
	v.nginx.Timeout = time.Minute
	first := make(chan Verdict, 1)
	go func() {
		verdict, _ := v.ValidateContext(context.Background(), newIngress("one", "b.example.com", "/", "web"), true)
		first <- verdict
	}()
	select {
	case <-tester.started:
	case <-time.After(30 * time.Second):
		close(tester.block)
		t.Fatal("the first review did not start its nginx -t within 30 s")
	}
	v.nginx.Timeout = 100 * time.Millisecond
	verdict, err := v.ValidateContext(context.Background(), newIngress("two", "c.example.com", "/", "web"), true)
	if err != nil {
		t.Fatal(err)
	}
	if w := problemStrings(verdict.Warnings); len(verdict.Denials) != 0 || !strings.Contains(w, "nginx -t not run") {
		t.Errorf("a review while another tests: denials %v, warnings %q", verdict.Denials, w)
	}
	close(tester.block)
	if verdict := <-first; len(verdict.Denials)+len(verdict.Warnings) != 0 {
		t.Errorf("the first review: %+v", verdict)
	}
	if n := tester.count(); n != 1 {
		t.Errorf("%d tests, want 1", n)
	}
}
