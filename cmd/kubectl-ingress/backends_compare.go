package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
)

// podAnswer is what one pod answered, or why it did not.
type podAnswer struct {
	Pod      string           `json:"pod"`
	Backends []luaapi.Backend `json:"backends,omitempty"`
	Error    string           `json:"error,omitempty"`

	backends []backendInfo // those shown (--backend)
	all      []backendInfo // all that the pod answered
}

// backendDifference is one aspect of one backend on which the pods that
// answered disagree, with each pod's value of it.
type backendDifference struct {
	Backend string `json:"backend"`
	// Aspect is what differs: presence, balancer, endpoints, canary or
	// settings (anything else Lua reads).
	Aspect string `json:"aspect"`
	// Values maps each pod to its value of the aspect.
	Values map[string]string `json:"values"`
}

// allPodsReport is the answer of --all-pods.
type allPodsReport struct {
	Pods        []podAnswer         `json:"pods"`
	Agree       bool                `json:"agree"`
	Differences []backendDifference `json:"differences"`
}

// compareAnswers lists where the pods that answered disagree, backend by
// backend (sorted by name), aspect by aspect.
func compareAnswers(answers []podAnswer) []backendDifference {
	var ok []podAnswer
	for _, a := range answers {
		if a.Error == "" {
			ok = append(ok, a)
		}
	}
	diffs := []backendDifference{}
	if len(ok) < 2 {
		return diffs
	}
	names := map[string]bool{}
	perPod := make([]map[string]backendInfo, len(ok))
	for i, a := range ok {
		perPod[i] = make(map[string]backendInfo, len(a.backends))
		for _, b := range a.backends {
			perPod[i][b.wire.Name] = b
			names[b.wire.Name] = true
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	aspects := []struct {
		name  string
		value func(backendInfo) string
	}{
		{"balancer", balancer},
		{"endpoints", func(b backendInfo) string { return sortedEndpoints(b) }},
		{"canary", canaryValue},
		{"settings", settingsValue},
	}
	for _, name := range sorted {
		presence := map[string]string{}
		missing := false
		for i, a := range ok {
			if _, has := perPod[i][name]; has {
				presence[a.Pod] = "present"
			} else {
				presence[a.Pod] = "absent"
				missing = true
			}
		}
		if missing {
			diffs = append(diffs, backendDifference{Backend: name, Aspect: "presence", Values: presence})
			continue
		}
		for _, asp := range aspects {
			values := map[string]string{}
			distinct := map[string]bool{}
			for i, a := range ok {
				v := asp.value(perPod[i][name])
				values[a.Pod] = v
				distinct[v] = true
			}
			if len(distinct) > 1 {
				diffs = append(diffs, backendDifference{Backend: name, Aspect: asp.name, Values: values})
			}
		}
	}
	return diffs
}

// sortedEndpoints is the endpoint count and all addresses in order, so
// that the order the pods list them in does not count as a difference.
func sortedEndpoints(b backendInfo) string {
	addrs := make([]string, 0, len(b.wire.Endpoints))
	for _, e := range b.wire.Endpoints {
		addrs = append(addrs, endpointAddress(e))
	}
	sort.Strings(addrs)
	if len(addrs) == 0 {
		return "0"
	}
	return fmt.Sprintf("%d: %s", len(addrs), strings.Join(addrs, ","))
}

// canaryValue is the alternatives of b, whether it is one itself, and its
// traffic policy.
func canaryValue(b backendInfo) string {
	alts := "-"
	if len(b.wire.AlternativeBackends) > 0 {
		alts = strings.Join(b.wire.AlternativeBackends, ",")
	}
	s := "alternatives " + alts
	if b.wire.NoServer {
		s += "; canary: " + policy(b.wire.TrafficShapingPolicy)
	}
	return s
}

// settingsValue is the rest of what Lua reads of b (what the other aspects
// do not cover), as JSON.
func settingsValue(b backendInfo) string {
	w := b.wire
	w.Endpoints, w.AlternativeBackends = nil, nil
	w.TrafficShapingPolicy = luaapi.TrafficShapingPolicy{}
	w.NoServer = false
	// What balancer reads.
	w.LoadBalance, w.UpstreamHashBy = "", luaapi.UpstreamHashByConfig{}
	w.SessionAffinity.Name, w.SessionAffinity.Mode, w.SessionAffinity.CookieSessionAffinity.Name = "", "", ""
	raw, err := json.Marshal(w)
	if err != nil {
		return err.Error()
	}
	return string(raw)
}

// printDifferences writes the differences for a person: per backend and
// aspect, each pod's value; for endpoints, each pod's count and the
// addresses that the other pods have and it lacks.
func printDifferences(w io.Writer, diffs []backendDifference) error {
	var b strings.Builder
	for _, d := range diffs {
		fmt.Fprintf(&b, "  %s: %s\n", d.Backend, d.Aspect)
		pods := make([]string, 0, len(d.Values))
		width := 0
		for p := range d.Values {
			pods = append(pods, p)
			width = max(width, len(p))
		}
		sort.Strings(pods)
		for _, p := range pods {
			v := d.Values[p]
			switch d.Aspect {
			case "endpoints":
				v = endpointsDelta(d, p)
			case "settings":
				v = settingsDelta(d, p)
			}
			fmt.Fprintf(&b, "    %-*s  %s\n", width, p, v)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// endpointsDelta is the endpoint count of pod and the addresses it lacks
// that another pod has.
func endpointsDelta(d backendDifference, pod string) string {
	addrs := func(v string) []string {
		_, list, ok := strings.Cut(v, ": ")
		if !ok {
			return nil
		}
		return strings.Split(list, ",")
	}
	mine := map[string]bool{}
	for _, a := range addrs(d.Values[pod]) {
		mine[a] = true
	}
	lacks := map[string]bool{}
	for p, v := range d.Values {
		if p == pod {
			continue
		}
		for _, a := range addrs(v) {
			if !mine[a] {
				lacks[a] = true
			}
		}
	}
	s := fmt.Sprintf("%d endpoints", len(mine))
	if len(lacks) > 0 {
		list := make([]string, 0, len(lacks))
		for a := range lacks {
			list = append(list, a)
		}
		sort.Strings(list)
		if len(list) > 5 {
			list = append(list[:5], fmt.Sprintf("+%d more", len(lacks)-5))
		}
		s += ", lacks " + strings.Join(list, ",")
	}
	return s
}

// settingsDelta is, of the settings of pod, the fields whose value is not
// the same on all pods.
func settingsDelta(d backendDifference, pod string) string {
	fields := make(map[string]map[string]json.RawMessage, len(d.Values))
	for p, v := range d.Values {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(v), &m); err != nil {
			return d.Values[pod]
		}
		fields[p] = m
	}
	keys := map[string]bool{}
	for _, m := range fields {
		for k := range m {
			keys[k] = true
		}
	}
	var parts []string
	for k := range keys {
		mine := string(fields[pod][k])
		for _, m := range fields {
			if string(m[k]) != mine {
				if mine == "" {
					mine = "(absent)"
				}
				parts = append(parts, k+"="+mine)
				break
			}
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}
