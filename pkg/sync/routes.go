package sync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Routes of --routing=lua. A State's Routes are the per-host route
// payloads of the hosts Lua routes (nil in classic mode): a host whose
// entry is new, changed or gone is posted to the Lua router, never the
// whole set, and needs no reload, since nginx.conf does not name it.

// StageRoutes posts the per-host route payloads (--routing=lua).
const StageRoutes Stage = "routes"

// RoutePusher posts route payloads to nginx's Lua router
// (pkg/luaapi.Client implements it). A host entry it refuses on its own is
// returned among the dropped ones, not as an error.
type RoutePusher interface {
	PostRoutes(ctx context.Context, u luaapi.RoutesUpdate) ([]luaapi.Dropped, error)
}

// RoutesRejectedError says which host entries the Lua router refused: the
// others were applied, and each refused host keeps its last accepted
// version.
type RoutesRejectedError struct {
	Dropped []luaapi.Dropped
}

func (e *RoutesRejectedError) Error() string {
	parts := make([]string, 0, len(e.Dropped))
	for _, d := range e.Dropped {
		parts = append(parts, fmt.Sprintf("%s: %s", d.Name, d.Reason))
	}
	return "the Lua router refused " + plural(len(e.Dropped), "host", "hosts") + ": " + strings.Join(parts, "; ")
}

// planRoutes sets p.Routes and p.PushRoutes from the route payloads of
// running and desired, and returns one dynamic reason per host posted or
// deleted, each naming an Ingress of the host.
func planRoutes(p *Plan, running, desired State) []Reason {
	p.Routes = luaapi.RoutesChanges(running.Routes, desired.Routes)
	p.PushRoutes = len(p.Routes.Hosts)+len(p.Routes.Delete) > 0
	var rs []Reason
	for _, h := range p.Routes.Hosts {
		what := "routes changed, pushed to the Lua router"
		if !hasHost(running.Routes, h.Host) {
			what = "routes added, pushed to the Lua router"
		}
		rs = append(rs, Reason{Object: entryOwner(desired.Routes, h), Message: fmt.Sprintf("host %s: %s", h.Host, what)})
	}
	for _, host := range p.Routes.Delete {
		rs = append(rs, Reason{Object: entryOwner(running.Routes, hostRoutes(running.Routes, host)), Message: fmt.Sprintf("host %s: routes removed from the Lua router", host)})
	}
	return rs
}

// entryOwner is hostOwner of h, or for a server-alias's entry of the
// entry in routes of the host it names.
func entryOwner(routes []luaapi.HostRoutes, h luaapi.HostRoutes) model.ObjectRef {
	if h.AliasOf != "" {
		h = hostRoutes(routes, h.AliasOf)
	}
	return hostOwner(h)
}

// hasHost tells whether routes, sorted by host as DesiredState makes them,
// hold an entry for host; a binary search, not a map of 100,000 hosts per
// sync.
func hasHost(routes []luaapi.HostRoutes, host string) bool {
	_, found := slices.BinarySearchFunc(routes, host, func(h luaapi.HostRoutes, host string) int { return strings.Compare(h.Host, host) })
	return found
}

// hostRoutes finds the entry of host in routes (zero when absent).
func hostRoutes(routes []luaapi.HostRoutes, host string) luaapi.HostRoutes {
	for _, h := range routes {
		if h.Host == host {
			return h
		}
	}
	return luaapi.HostRoutes{Host: host}
}

// hostOwner names the Ingress of the first path of h that has one (the
// host's oldest owner in the writer's order), else nothing.
func hostOwner(h luaapi.HostRoutes) model.ObjectRef {
	if ns, name := h.Owner(); name != "" {
		return model.ObjectRef{Kind: "Ingress", Namespace: ns, Name: name}
	}
	return model.ObjectRef{}
}

// pushRoutes posts u through p (a RoutePusher) with retries. Refused host
// entries are a *RoutesRejectedError in an *ApplyError of StageRoutes,
// after the rest was applied.
func pushRoutes(ctx context.Context, p Pusher, u luaapi.RoutesUpdate) error {
	if len(u.Hosts)+len(u.Delete) == 0 {
		return nil
	}
	rp, ok := p.(RoutePusher)
	if !ok {
		return &ApplyError{Stage: StageRoutes, Err: errors.New("the config routes hosts in Lua but the pusher cannot post routes")}
	}
	return postRoutes(ctx, func(ctx context.Context) ([]luaapi.Dropped, error) { return rp.PostRoutes(ctx, u) })
}

// postRoutes makes a POST of routes with retries; the host entries nginx
// dropped are a RoutesRejectedError.
func postRoutes(ctx context.Context, post func(context.Context) ([]luaapi.Dropped, error)) error {
	var dropped []luaapi.Dropped
	err := retry(ctx, func(ctx context.Context) error {
		var err error
		dropped, err = post(ctx)
		return err
	})
	if err != nil {
		return &ApplyError{Stage: StageRoutes, Err: err}
	}
	if len(dropped) > 0 {
		return &ApplyError{Stage: StageRoutes, Err: &RoutesRejectedError{Dropped: dropped}}
	}
	return nil
}

// pushRoutesBody posts the body that open gives (every desired host, as
// preloadRoutes wrote it): read as it is sent when p posts from a reader
// (see StreamPusher), else read whole and posted when p takes bodies (see
// BodyPusher); else it calls fallback.
func pushRoutesBody(ctx context.Context, p Pusher, open luaapi.OpenBody, fallback func(context.Context) error) error {
	if sp, ok := p.(StreamPusher); ok {
		return postRoutes(ctx, func(ctx context.Context) ([]luaapi.Dropped, error) {
			return sp.PostBodyFrom(ctx, luaapi.PathRoutes, open)
		})
	}
	bp, ok := p.(BodyPusher)
	if !ok {
		return fallback(ctx)
	}
	return postRoutes(ctx, func(ctx context.Context) ([]luaapi.Dropped, error) {
		body, err := open.ReadAll()
		if err != nil {
			return nil, err
		}
		return bp.PostBody(ctx, luaapi.PathRoutes, body)
	})
}

// routesAfterReload is the update to post once nginx serves desired's
// nginx.conf: the plan's, or every desired host when nginx starts or the
// reload gave the routes dict a new, empty zone.
func routesAfterReload(plan Plan, running, desired State) luaapi.RoutesUpdate {
	if running.Config == nil || plan.Resized(luaapi.DictRoutes) {
		return luaapi.RoutesChanges(nil, desired.Routes)
	}
	return plan.Routes
}

// routesBeforeReload is the bridge of the routes: the hosts added or
// changed, without the deletions. The running nginx.conf serves them as
// well (a host that leaves a classic server block for the Lua router is
// still caught by that block until the reload); a host that moves to a
// classic block keeps its Lua entry until the reload made the block
// serve. Nothing when the reload resizes the routes dict (its new zone is
// filled after the reload).
func routesBeforeReload(plan Plan, running State) luaapi.RoutesUpdate {
	if plan.Resized(luaapi.DictRoutes) {
		return luaapi.RoutesUpdate{}
	}
	// A route that names a shape location the running nginx.conf lacks
	// (a new set of custom-http-errors codes, new proxy buffering
	// settings) waits for the reload that writes it: ngx.exec to a missing
	// location would answer 500.
	present := map[string]bool{}
	for _, name := range routerView(running.NGINXConf).shapes {
		present[name] = true
	}
	hosts := make([]luaapi.HostRoutes, 0, len(plan.Routes.Hosts))
	for _, h := range plan.Routes.Hosts {
		if namesOnly(h, present) {
			hosts = append(hosts, h)
		}
	}
	return luaapi.RoutesUpdate{Hosts: hosts}
}

// namesOnly says whether every named location that the route entry h
// sends requests to is one of present.
func namesOnly(h luaapi.HostRoutes, present map[string]bool) bool {
	for _, shape := range h.Shapes() {
		if !present[shape] {
			return false
		}
	}
	return true
}

// pushDynamic posts what a DynamicOnly plan names: the backends, the
// routes, then the servers. A route may name a backend that is new, so
// the backends go first; when backends are also removed, the routes that
// stop naming them must be in place before they go, so the bridge of the
// backends (desired plus running's) goes first, then the routes, then the
// desired backends.
func pushDynamic(ctx context.Context, plan Plan, running, desired State, p Pusher, backends []luaapi.Backend, servers luaapi.Servers) error {
	if plan.PushRoutes && len(plan.Backends.Removed) > 0 && running.Config != nil {
		bridge, _ := Bridge(running.Config, desired.Config)
		if err := push(ctx, p, bridge, luaapi.Servers{}, true, false); err != nil {
			return bridgeStage(err)
		}
	}
	if plan.PushBackends && !plan.PushRoutes {
		return push(ctx, p, backends, servers, true, plan.PushServers)
	}
	if plan.PushBackends && len(plan.Backends.Removed) == 0 {
		if err := push(ctx, p, backends, servers, true, false); err != nil {
			return err
		}
	}
	if err := pushRoutes(ctx, p, plan.Routes); err != nil {
		return err
	}
	return push(ctx, p, backends, servers, plan.PushBackends && len(plan.Backends.Removed) > 0, plan.PushServers)
}

// bridgeStage marks an *ApplyError as StageBridge: it happened before
// anything the plan changes was applied.
func bridgeStage(err error) error {
	var ae *ApplyError
	if errors.As(err, &ae) {
		ae.Stage = StageBridge
	}
	return err
}

// RoutesPreloader is a Reloader that takes the route payload of the config
// it is about to start or reload with (pkg/nginx.Instance implements it):
// the master loads it into routes_data when that dict is empty (a start,
// or a reload that resized it), before its workers accept a connection.
// write writes the JSON body of POST /configuration/routes
// (luaapi.WriteRoutesUpdate) where the preloader keeps it, and the
// preloader returns what opens that body again (to post it once nginx
// runs); nil write: none (classic routing), and nil is returned.
type RoutesPreloader interface {
	PreloadRoutes(ctx context.Context, write func(io.Writer) error) (func() (io.ReadCloser, int64, error), error)
}

// preloadRoutes hands r (when it is a RoutesPreloader) every route of
// desired, or none in classic mode; it returns what opens the body it
// handed (nil when none).
func preloadRoutes(ctx context.Context, r Reloader, desired State) (luaapi.OpenBody, error) {
	rp, ok := r.(RoutesPreloader)
	if !ok {
		return nil, nil
	}
	var write func(io.Writer) error
	if desired.Routes != nil {
		u := luaapi.RoutesChanges(nil, desired.Routes)
		write = func(w io.Writer) error { return luaapi.WriteRoutesUpdate(w, u) }
	}
	open, err := rp.PreloadRoutes(ctx, write)
	if err != nil {
		return nil, fmt.Errorf("preload: %w", err)
	}
	return open, nil
}
