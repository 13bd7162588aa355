package main

import (
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/internal/textdiff"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// diffReport is what "kubectl ingress diff" says, for people (text) and for
// machines (-o json|yaml). It never holds certificate or key contents.
type diffReport struct {
	Verdict        string          `json:"verdict"`
	Reasons        []diffReason    `json:"reasons"`
	ChangedServers []string        `json:"changedServers"`
	Backends       []backendChange `json:"backends"`
	Certificates   ksync.Changes   `json:"certificates"`
	Problems       problemChanges  `json:"problems"`
	// Routes are the hosts posted to and deleted from the Lua router
	// (--routing=lua); ClassicHosts the hosts that keep a server block in
	// that mode after the change, each with why.
	Routes       *routeChanges       `json:"routes,omitempty"`
	ClassicHosts map[string][]string `json:"classicHosts,omitempty"`

	plan    ksync.Plan
	oldConf []byte
	newConf []byte
}

type diffReason struct {
	Reload bool   `json:"reload"`
	Kind   string `json:"kind,omitempty"`
	Object string `json:"object,omitempty"`
	Text   string `json:"text"`
}

// backendChange summarises one backend that is added, removed or changed:
// names and endpoint counts only.
type backendChange struct {
	Name                string `json:"name"`
	Change              string `json:"change"` // added | removed | changed
	EndpointsBefore     int    `json:"endpointsBefore"`
	EndpointsAfter      int    `json:"endpointsAfter"`
	AlternativeBackends string `json:"alternativeBackends,omitempty"`
}

// problemChanges sorts the problems of both sides: the ones the change
// introduces come first.
type problemChanges struct {
	Introduced []string `json:"introduced"`
	Remaining  []string `json:"remaining"`
	Fixed      []string `json:"fixed"`
}

// routeChanges are the host entries of the Lua router a change posts
// and deletes.
type routeChanges struct {
	Pushed  []string `json:"pushed"`
	Deleted []string `json:"deleted"`
}

func newDiffReport(old, cur *rendered) *diffReport {
	plan := ksync.NewPlan(old.state, cur.state)
	r := &diffReport{
		Verdict:        plan.Verdict.String(),
		Reasons:        []diffReason{},
		ChangedServers: append([]string{}, plan.ChangedServers...),
		Backends:       backendChanges(old.Config, cur.Config, plan.Backends),
		Certificates:   plan.Certificates,
		Problems:       compareProblems(old.Problems, cur.Problems),
		plan:           plan,
		oldConf:        old.NGINXConf,
		newConf:        cur.NGINXConf,
	}
	if cur.state.Routes != nil {
		r.Routes = &routeChanges{Pushed: []string{}, Deleted: append([]string{}, plan.Routes.Delete...)}
		for _, h := range plan.Routes.Hosts {
			r.Routes.Pushed = append(r.Routes.Pushed, h.Host)
		}
		r.ClassicHosts = map[string][]string{}
		for host, reasons := range cur.Classic {
			for _, reason := range reasons {
				r.ClassicHosts[host] = append(r.ClassicHosts[host], reason.String())
			}
		}
	}
	for _, reason := range plan.Reasons {
		r.Reasons = append(r.Reasons, diffReason{
			Reload: reason.Reload,
			Kind:   reason.Object.Kind,
			Object: reason.Object.String(),
			Text:   reason.String(),
		})
	}
	return r
}

func backendChanges(old, cur *model.Config, ch ksync.Changes) []backendChange {
	out := []backendChange{}
	count := func(c *model.Config, name string) int {
		if b := c.Backend(name); b != nil {
			return len(b.Endpoints)
		}
		return 0
	}
	add := func(names []string, kind string) {
		for _, n := range names {
			bc := backendChange{Name: n, Change: kind, EndpointsBefore: count(old, n), EndpointsAfter: count(cur, n)}
			if b := cur.Backend(n); b != nil && len(b.AlternativeBackends) > 0 {
				bc.AlternativeBackends = strings.Join(b.AlternativeBackends, ",")
			}
			out = append(out, bc)
		}
	}
	add(ch.Added, "added")
	add(ch.Removed, "removed")
	add(ch.Changed, "changed")
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func compareProblems(old, cur []model.Problem) problemChanges {
	before := map[string]bool{}
	for _, p := range old {
		before[p.String()] = true
	}
	pc := problemChanges{Introduced: []string{}, Remaining: []string{}, Fixed: []string{}}
	after := map[string]bool{}
	for _, p := range cur {
		s := p.String()
		after[s] = true
		if before[s] {
			pc.Remaining = append(pc.Remaining, s)
		} else {
			pc.Introduced = append(pc.Introduced, s)
		}
	}
	for _, p := range old {
		if s := p.String(); !after[s] {
			pc.Fixed = append(pc.Fixed, s)
		}
	}
	return pc
}

// confSection is one part of nginx.conf: the text before the first server,
// one server block (between its "## start server" and "## end server"
// lines), the text between two server blocks, or the text after the last
// one.
type confSection struct {
	key   string // "" for the preamble, "server HOST", "~after server HOST", or "~trailer"
	first int    // 0-based line number of its first line
	lines []string
}

// splitConf cuts conf into its sections, each key once.
func splitConf(conf []byte) []confSection {
	lines := textdiff.Lines(string(conf))
	var out []confSection
	cur := confSection{}
	for i, l := range lines {
		t := strings.TrimLeft(l, "\t ")
		if host, ok := strings.CutPrefix(t, "## start server "); ok {
			out = append(out, cur)
			cur = confSection{key: "server " + host, first: i}
		}
		cur.lines = append(cur.lines, l)
		if host, ok := strings.CutPrefix(t, "## end server "); ok {
			out = append(out, cur)
			cur = confSection{key: "~after server " + host, first: i + 1}
		}
	}
	if strings.HasPrefix(cur.key, "~after ") {
		cur.key = "~trailer"
	}
	return append(out, cur)
}

// confDiff gives the hunks of nginx.conf that changed, per server block,
// each hunk titled with its section.
func confDiff(oldConf, newConf []byte, color *textdiff.Colors) string {
	olds, news := splitConf(oldConf), splitConf(newConf)
	om := map[string]confSection{}
	for _, s := range olds {
		om[s.key] = s
	}
	nm := map[string]confSection{}
	var keys []string
	for _, s := range news {
		nm[s.key] = s
		keys = append(keys, s.key)
	}
	for _, s := range olds {
		if _, ok := nm[s.key]; !ok {
			keys = append(keys, s.key)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		o, n := om[k], nm[k]
		if slices.Equal(o.lines, n.lines) {
			continue
		}
		title := "## " + strings.TrimPrefix(k, "~")
		if k == "" {
			title = "## main and http settings"
		} else if strings.HasPrefix(k, "server ") {
			title = "## start " + k
		}
		b.WriteString(textdiff.Hunks(textdiff.Diff(o.lines, n.lines), 3, textdiff.Section{FirstOld: o.first, FirstNew: n.first, Title: title}, color))
	}
	return b.String()
}
