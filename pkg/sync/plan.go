package sync

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// State is one configuration of nginx: the model and the nginx.conf written
// from it.
type State struct {
	Config    *model.Config
	NGINXConf []byte
	// Routes are the route payloads of the hosts the Lua router serves
	// (--routing=lua), sorted by host; nil in classic mode.
	Routes []luaapi.HostRoutes

	// order is set by DesiredState: see stateOrder.
	order *stateOrder
}

// Verdict says what applying a change costs.
type Verdict int

// The verdicts, from cheapest to dearest.
const (
	NoChange Verdict = iota
	DynamicOnly
	ReloadRequired
)

func (v Verdict) String() string {
	switch v {
	case NoChange:
		return "no change"
	case DynamicOnly:
		return "dynamic only"
	default:
		return "reload required"
	}
}

// Reason explains one change: the object it comes from and what changed.
type Reason struct {
	// Reload is true when the change is in nginx.conf, false when it goes
	// to Lua only.
	Reload bool
	Object model.ObjectRef
	// Message says what changed, e.g. "path /cart added (server shop.example.com)".
	Message string
}

// String gives "kind namespace/name: message", kind in lower case.
func (r Reason) String() string {
	kind := strings.ToLower(r.Object.Kind)
	name := r.Object.String()
	switch {
	case kind == "" && name == "":
		return r.Message
	case name == "":
		return kind + ": " + r.Message
	case kind == "":
		return name + ": " + r.Message
	}
	return kind + " " + name + ": " + r.Message
}

// Plan is the outcome of comparing a running and a desired State.
type Plan struct {
	Verdict Verdict
	// Reasons lists the reload reasons first, then the dynamic ones, each
	// group in a deterministic order.
	Reasons []Reason
	// ChangedServers are the hosts whose server block in nginx.conf changed
	// (added, removed or different), sorted.
	ChangedServers []string
	// Backends and Certificates say what changes in the Lua payloads.
	Backends     Changes
	Certificates Changes
	// PushBackends and PushServers say which Lua payloads differ and must
	// be posted (after a reload they are posted whatever these say).
	PushBackends bool
	PushServers  bool
	// ResizedDicts names the lua_shared_dict zones (luaapi.DictConfiguration
	// …) whose size the reload changes: nginx gives the new workers new,
	// empty zones, which the master fills from the preload files (see
	// Preloader) while the old workers keep theirs.
	ResizedDicts []string
	// PushStream says that the stream payload (endpoints of TCP/UDP
	// services and SSL passthrough hosts) differs and must be written.
	PushStream bool
	// PushFiles says that a file the workers read per request (an
	// htpasswd file) has a new content to write (files.go); the files of
	// a reload are written whatever it says.
	PushFiles bool
	// Routes are the host entries of the Lua router to post and delete
	// (--routing=lua, routes.go); PushRoutes says that it is not empty.
	Routes     luaapi.RoutesUpdate
	PushRoutes bool
}

// Changes lists names added, removed and changed, each sorted.
type Changes struct {
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Changed []string `json:"changed,omitempty"`
}

// Empty reports whether nothing changed.
func (c Changes) Empty() bool { return len(c.Added)+len(c.Removed)+len(c.Changed) == 0 }

// NewPlan compares running (nil Config for an nginx that has none yet) with
// desired. nginx reloads exactly when the nginx.conf bytes differ; the
// model comparison only explains why.
func NewPlan(running, desired State) Plan {
	var p Plan
	if running.Config == nil {
		p.Verdict = ReloadRequired
		p.Reasons = []Reason{{Reload: true, Message: "initial configuration"}}
		p.PushBackends, p.PushServers = true, true
		p.PushStream = !desired.Config.Stream.Empty()
		for _, s := range desired.Config.Servers {
			p.ChangedServers = append(p.ChangedServers, s.Hostname)
		}
		p.Backends.Added = backendNames(desired.Config)
		p.Certificates.Added = certificateIDs(desired.Config)
		p.Routes = luaapi.RoutesChanges(nil, desired.Routes)
		p.PushRoutes = len(p.Routes.Hosts) > 0
		return p
	}
	reload := !bytes.Equal(running.NGINXConf, desired.NGINXConf)
	if reload {
		var rs []Reason
		rs, p.ChangedServers = confReasons(running.Config, desired.Config, luaRoutedInBoth(running, desired))
		rs = append(rs, routerConfReasons(running, desired)...)
		rs = append(rs, streamConfReasons(running.Config, desired.Config)...)
		var dictReasons []Reason
		dictReasons, p.ResizedDicts = dictChanges(running.NGINXConf, desired.NGINXConf)
		rs = append(rs, dictReasons...)
		if len(rs) == 0 {
			rs = []Reason{{Reload: true, Message: "nginx.conf changed"}}
		}
		p.Reasons = append(p.Reasons, rs...)
	}
	runningBackends, runningServers := running.ordered()
	desiredBackends, desiredServers := desired.ordered()
	backendReasons, bc := diffBackends(running.Config, desired.Config, runningBackends && desiredBackends)
	certReasons, cc, serversChanged := diffCertificates(running.Config, desired.Config, runningServers && desiredServers)
	p.Backends, p.Certificates = bc, cc
	p.PushBackends = !bc.Empty()
	p.PushServers = serversChanged
	p.Reasons = append(p.Reasons, backendReasons...)
	p.Reasons = append(p.Reasons, certReasons...)
	streamReasons, pushStream := diffStream(running.Config, desired.Config)
	p.PushStream = pushStream
	p.Reasons = append(p.Reasons, streamReasons...)
	fileReasons, pushFiles := diffFiles(running.Config, desired.Config, reload)
	p.PushFiles = pushFiles
	p.Reasons = append(p.Reasons, fileReasons...)
	p.Reasons = append(p.Reasons, planRoutes(&p, running, desired)...)
	// Reload reasons first (a file added with a new name is one).
	sort.SliceStable(p.Reasons, func(i, j int) bool { return p.Reasons[i].Reload && !p.Reasons[j].Reload })
	switch {
	case reload:
		p.Verdict = ReloadRequired
	case p.PushBackends || p.PushServers || p.PushStream || p.PushFiles || p.PushRoutes:
		p.Verdict = DynamicOnly
	}
	return p
}

func backendNames(c *model.Config) []string {
	out := make([]string, 0, len(c.Backends))
	for _, b := range c.Backends {
		out = append(out, b.Name)
	}
	return out
}

func certificateIDs(c *model.Config) []string {
	out := make([]string, 0, len(c.Certificates))
	for _, cert := range c.Certificates {
		out = append(out, cert.ID)
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
