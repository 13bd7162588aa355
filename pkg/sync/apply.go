package sync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Reloader loads a new nginx.conf into the running nginx and returns once
// workers started with it serve (pkg/nginx.Instance implements it). A
// config that nginx rejects leaves the running one serving.
type Reloader interface {
	Reload(ctx context.Context, conf []byte) error
}

// Preloader is a Reloader that takes the Lua payloads of the config it is
// about to start or reload with (pkg/nginx.Instance implements it): nginx's
// master loads them into the shared dicts that are empty then (all of
// them at a start; the resized ones at a reload, see Plan.ResizedDicts),
// before its workers accept a connection. backends and servers are the
// JSON bodies of POST /configuration/backends and /configuration/servers.
type Preloader interface {
	Preload(ctx context.Context, backends, servers []byte) error
}

// Pusher posts the Lua payloads to nginx's status server
// (pkg/luaapi.Client implements it).
type Pusher interface {
	PostBackends(ctx context.Context, backends []luaapi.Backend) error
	PostServers(ctx context.Context, servers luaapi.Servers) error
}

// StreamWriter replaces the stream payload files that nginx's stream
// servers read per connection (name → content, see luaapi.Stream.Files):
// it writes each file atomically and removes the files not named; nil
// removes them all. pkg/nginx.Instance implements it. There is no HTTP API
// in the stream module to post the payload to.
type StreamWriter interface {
	WriteStream(ctx context.Context, files map[string][]byte) error
}

// Stage names the step of Apply that failed.
type Stage string

// The steps of Apply, in the order they run.
const (
	// StageBridge posts, before a reload, the payloads that both the
	// running and the desired nginx.conf can serve with.
	StageBridge Stage = "bridge"
	// StageReload is the reload itself (nginx -t, swap, SIGHUP, wait).
	StageReload Stage = "reload"
	// StageBackends and StageServers post the desired payloads.
	StageBackends Stage = "backends"
	StageServers  Stage = "servers"
	// StageStream writes the stream payload.
	StageStream Stage = "stream"
)

// ApplyError is the error of Apply: the step that failed and why. When
// Stage is StageReload the running nginx.conf still serves; Lua may hold
// the bridge payloads (see Apply), which the running config serves with.
type ApplyError struct {
	Stage Stage
	Err   error
}

func (e *ApplyError) Error() string { return fmt.Sprintf("apply: %s: %v", e.Stage, e.Err) }

func (e *ApplyError) Unwrap() error { return e.Err }

// Push retries: a POST that fails for a reason that may pass (nginx
// busy, a worker restarting, a connection reset, a 5xx) is tried up to
// pushAttempts times, waiting pushDelay, then twice as long each time
// (50+100+200+400 ms: at most 750 ms of waiting), never past the context.
const (
	pushAttempts = 5
	pushDelay    = 50 * time.Millisecond
)

// Apply makes nginx serve desired, given the plan from NewPlan(running,
// desired):
//
//   - NoChange: nothing.
//   - DynamicOnly: post the payloads the plan names (PushBackends,
//     PushServers), with bounded retries, and write the stream payload
//     when PushStream says so.
//   - ReloadRequired: (1) when desired needs backends, certificates or
//     host mappings that running lacks, post the bridge payloads: the
//     desired ones plus what only running has (Bridge), each unless the
//     reload resizes its dict; (2) when r is a Preloader, hand it the
//     desired payloads; (3) reload (or start) and wait until workers forked
//     with the new config serve it; (4) post the desired backends and
//     servers, whatever the plan's Push flags say.
//
// What the order guarantees. lua_shared_dict zones of the same name and
// size survive a SIGHUP, so the payloads in them are read by the new
// workers as soon as they start. With the bridge in place before the
// SIGHUP, the first request a new worker takes already finds every backend
// and certificate the new nginx.conf names; the old workers, draining,
// find every one theirs names, and endpoints are already the desired ones
// (they are the truth for both configs). Step 3 then drops what only the
// old config used. Without step 1, a location added with a new backend
// would answer 503 from the moment new workers accept until the push.
// A reload that changes a zone's size gives the new workers a new, empty
// zone: the bridge would go to the old zone only (and may not fit there:
// the payloads outgrew it), so it is left out for that zone, and step 2
// fills the new zone in the master before the workers start. Step 2 also
// makes a start (the first, or after the master died) serve the payloads
// from the first request.
//
// A reload that fails (nginx -t rejects the config, the master refuses
// it, ctx ends) leaves the running nginx.conf serving and Lua with the
// bridge payloads, which that config serves correctly. The caller should
// post the payloads again on its next sync (Lua no longer equals running).
//
// The stream payload (sw) is written like the Lua payloads: before a
// reload the bridge of running and desired (BridgeStream: the new stream
// servers find their endpoints from their first connection), after it the
// desired one. sw may be nil only while neither config has stream servers.
//
// Errors are *ApplyError wrapping the cause.
func Apply(ctx context.Context, plan Plan, running, desired State, r Reloader, p Pusher, sw StreamWriter) error {
	switch plan.Verdict {
	case NoChange:
		return nil
	case DynamicOnly:
		// The payloads only when they are posted: a change of routes alone
		// does not convert 100,000 backends.
		var backends []luaapi.Backend
		var servers luaapi.Servers
		if plan.PushBackends || plan.PushServers {
			backends, servers = luaapi.FromModel(desired.Config)
		}
		if err := pushDynamic(ctx, plan, running, desired, p, backends, servers); err != nil {
			return err
		}
		if plan.PushStream {
			return writeStream(ctx, sw, desired.Config)
		}
		return nil
	}
	if running.Config != nil && needsBridge(plan) {
		doBackends := !plan.Resized(luaapi.DictConfiguration)
		doServers := !plan.Resized(luaapi.DictCertificates) && !plan.Resized(luaapi.DictServers)
		if err := pushBridge(ctx, running.Config, desired.Config, p, doBackends, doServers); err != nil {
			return err
		}
	}
	if !desired.Config.Stream.Empty() {
		var err error
		if running.Config != nil {
			b := BridgeStream(running.Config, desired.Config)
			err = writeStreamPayload(ctx, sw, &b)
		} else {
			err = writeStream(ctx, sw, desired.Config)
		}
		var ae *ApplyError
		if errors.As(err, &ae) {
			ae.Stage = StageBridge // nothing reloaded yet
		}
		if err != nil {
			return err
		}
	}
	backends, servers := luaapi.FromModel(desired.Config)
	var pre preloaded
	if pl, ok := r.(Preloader); ok {
		var err error
		if pre, err = preload(ctx, pl, p, backends, servers); err != nil {
			return &ApplyError{Stage: StageBridge, Err: err}
		}
	}
	openRoutes, err := preloadRoutes(ctx, r, desired)
	if err != nil {
		return &ApplyError{Stage: StageBridge, Err: err}
	}
	if running.Config != nil {
		if err := pushRoutes(ctx, p, routesBeforeReload(plan, running)); err != nil {
			return bridgeStage(err)
		}
	}
	if err := r.Reload(ctx, desired.NGINXConf); err != nil {
		return &ApplyError{Stage: StageReload, Err: err}
	}
	if err := pushAfterReload(ctx, p, backends, servers, pre); err != nil {
		return err
	}
	u := routesAfterReload(plan, running, desired)
	if openRoutes != nil && (running.Config == nil || plan.Resized(luaapi.DictRoutes)) {
		// every desired host: what preloadRoutes wrote
		err = pushRoutesBody(ctx, p, openRoutes, func(ctx context.Context) error { return pushRoutes(ctx, p, u) })
	} else {
		err = pushRoutes(ctx, p, u)
	}
	if err != nil {
		return err
	}
	return writeStream(ctx, sw, desired.Config)
}

// preloaded holds the payloads as preload encoded them (nil when there
// was no Preloader): Apply posts these bodies after the reload rather
// than encoding the payloads again.
type preloaded struct {
	backends *luaapi.EncodedBackends
	servers  []byte
}

// preload encodes the payloads as the Pusher would post them and hands
// them to pl; it returns the encoded bodies.
func preload(ctx context.Context, pl Preloader, p Pusher, backends []luaapi.Backend, servers luaapi.Servers) (preloaded, error) {
	encode := luaapi.EncodeBackends
	if be, ok := p.(BackendsEncoder); ok {
		encode = be.EncodeBackends
	}
	b, err := encode(backends)
	if err != nil {
		return preloaded{}, fmt.Errorf("preload: encoding the backends: %w", err)
	}
	s, err := json.Marshal(servers)
	if err != nil {
		return preloaded{}, fmt.Errorf("preload: encoding the servers: %w", err)
	}
	body, err := b.Body()
	if err != nil {
		return preloaded{}, fmt.Errorf("preload: encoding the backends: %w", err)
	}
	if err := pl.Preload(ctx, body, s); err != nil {
		return preloaded{}, fmt.Errorf("preload: %w", err)
	}
	return preloaded{backends: b, servers: s}, nil
}

// BodyPusher is a Pusher that also posts payloads already encoded as
// their POST bodies (pkg/luaapi.Client implements it): path is
// luaapi.PathBackends, PathServers or PathRoutes, and the answer is the
// entries nginx dropped. After a reload Apply posts so the bodies it
// encoded for the preload (at 100,000 Ingresses 57 MB of backends and
// 87 MB of routes, seconds of encoding each), which nginx, having just
// preloaded them, answers from memory.
type BodyPusher interface {
	PostBody(ctx context.Context, path string, body []byte) ([]luaapi.Dropped, error)
}

// BackendsEncoder is a Pusher that encodes backends as their POST body
// itself (pkg/luaapi.Client implements it), keeping what it encoded: the
// preload encodes through it, so that its next push of backends encodes
// only those that changed.
type BackendsEncoder interface {
	EncodeBackends(backends []luaapi.Backend) (*luaapi.EncodedBackends, error)
}

// StreamPusher is a Pusher that posts a body read from where open finds
// it (a preload file), as it sends it: the routes of 100,000 hosts are
// never held in memory (pkg/luaapi.Client implements it).
type StreamPusher interface {
	PostBodyFrom(ctx context.Context, path string, open luaapi.OpenBody) ([]luaapi.Dropped, error)
}

// EncodedPusher is a BodyPusher that also posts backends already encoded
// (pkg/luaapi.Client implements it), sending only what changed since the
// whole array it posted last when nginx still holds that array (a reload
// that kept the dict), else the whole array (which nginx, having just
// preloaded it, answers from memory).
type EncodedPusher interface {
	BodyPusher
	PostEncodedBackends(ctx context.Context, e *luaapi.EncodedBackends) ([]luaapi.Dropped, error)
}

// pushAfterReload posts the desired backends and servers after a reload:
// the preload's bodies when p takes bodies, else the payloads.
func pushAfterReload(ctx context.Context, p Pusher, backends []luaapi.Backend, servers luaapi.Servers, pre preloaded) error {
	bp, ok := p.(BodyPusher)
	if !ok || pre.backends == nil {
		return push(ctx, p, backends, servers, true, true)
	}
	postBackends := func(ctx context.Context) error {
		body, err := pre.backends.Body() // built by the preload
		if err != nil {
			return err
		}
		_, err = bp.PostBody(ctx, luaapi.PathBackends, body)
		return err
	}
	if ep, ok := p.(EncodedPusher); ok {
		postBackends = func(ctx context.Context) error {
			_, err := ep.PostEncodedBackends(ctx, pre.backends)
			return err
		}
	}
	if err := retry(ctx, postBackends); err != nil {
		return &ApplyError{Stage: StageBackends, Err: err}
	}
	if err := retry(ctx, func(ctx context.Context) error {
		_, err := bp.PostBody(ctx, luaapi.PathServers, pre.servers)
		return err
	}); err != nil {
		return &ApplyError{Stage: StageServers, Err: err}
	}
	return nil
}

// writeStream writes the stream payload of c (removes it when c has no
// stream servers).
func writeStream(ctx context.Context, sw StreamWriter, c *model.Config) error {
	files, err := luaapi.StreamFiles(c)
	if err != nil {
		return &ApplyError{Stage: StageStream, Err: err}
	}
	return writeStreamFiles(ctx, sw, files)
}

func writeStreamPayload(ctx context.Context, sw StreamWriter, s *luaapi.Stream) error {
	files, err := s.Files()
	if err != nil {
		return &ApplyError{Stage: StageStream, Err: err}
	}
	return writeStreamFiles(ctx, sw, files)
}

func writeStreamFiles(ctx context.Context, sw StreamWriter, files map[string][]byte) error {
	if sw == nil {
		if files == nil {
			return nil
		}
		return &ApplyError{Stage: StageStream, Err: errors.New("the config has stream servers but there is no stream writer")}
	}
	if err := sw.WriteStream(ctx, files); err != nil {
		return &ApplyError{Stage: StageStream, Err: err}
	}
	return nil
}

// needsBridge tells whether the desired config names Lua state that the
// running payloads lack: a backend added, or a certificate or host mapping
// changed. Otherwise the running payloads serve the new config as well.
func needsBridge(plan Plan) bool {
	return len(plan.Backends.Added) > 0 || plan.PushServers
}

// Bridge returns the payloads that both running and desired serve with:
// every desired backend, plus the backends only running has; every desired
// host mapping, plus the hosts only running maps; the certificates of both
// (desired's win for the same ID).
func Bridge(running, desired *model.Config) ([]luaapi.Backend, luaapi.Servers) {
	rb, rs := luaapi.FromModel(running)
	db, ds := luaapi.FromModel(desired)
	have := make(map[string]bool, len(db))
	for _, b := range db {
		have[b.Name] = true
	}
	for _, b := range rb {
		if !have[b.Name] {
			db = append(db, b)
		}
	}
	for host, id := range rs.Servers {
		if _, ok := ds.Servers[host]; !ok {
			ds.Servers[host] = id
		}
	}
	for id, pem := range rs.Certificates {
		if _, ok := ds.Certificates[id]; !ok {
			ds.Certificates[id] = pem
		}
	}
	return db, ds
}

// push posts the backends and then the servers, each when asked, each
// with retries.
func push(ctx context.Context, p Pusher, backends []luaapi.Backend, servers luaapi.Servers, doBackends, doServers bool) error {
	if doBackends {
		if err := retry(ctx, func(ctx context.Context) error { return p.PostBackends(ctx, backends) }); err != nil {
			return &ApplyError{Stage: StageBackends, Err: err}
		}
	}
	if doServers {
		if err := retry(ctx, func(ctx context.Context) error { return p.PostServers(ctx, servers) }); err != nil {
			return &ApplyError{Stage: StageServers, Err: err}
		}
	}
	return nil
}

// retry calls post until it succeeds, fails for good, pushAttempts calls
// are made or ctx ends. The error says how many attempts were made.
func retry(ctx context.Context, post func(context.Context) error) error {
	delay := pushDelay
	var err error
	for attempt := 1; ; attempt++ {
		err = post(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || !retryable(err) {
			return err
		}
		if attempt == pushAttempts {
			return fmt.Errorf("%d attempts: %w", attempt, err)
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return fmt.Errorf("%d attempts, then %w: %w", attempt, ctx.Err(), err)
		case <-timer.C:
		}
		delay *= 2
	}
}

// retryable tells whether another attempt may succeed: nginx refusing the
// payload (a 4xx other than 408 and 429) will refuse it again.
func retryable(err error) bool {
	var se *luaapi.StatusError
	if errors.As(err, &se) {
		return se.Code >= 500 || se.Code == http.StatusRequestTimeout || se.Code == http.StatusTooManyRequests
	}
	return true
}

// WriteStreamBridge writes the stream payload that both running and
// desired serve with (BridgeStream), when either has stream servers. A
// caller whose desired nginx.conf nginx rejects uses it, like PushBridge,
// to keep the endpoints of the running stream servers current.
func WriteStreamBridge(ctx context.Context, running, desired *model.Config, sw StreamWriter) error {
	if running.Stream.Empty() && desired.Stream.Empty() {
		return nil
	}
	b := BridgeStream(running, desired)
	return writeStreamPayload(ctx, sw, &b)
}

// PushBridge posts the bridge payloads of running and desired (see Bridge)
// without reloading, with retries. A caller whose desired nginx.conf nginx
// rejects uses it to keep endpoints and certificates current for the
// running config meanwhile.
func PushBridge(ctx context.Context, running, desired *model.Config, p Pusher) error {
	return pushBridge(ctx, running, desired, p, true, true)
}

func pushBridge(ctx context.Context, running, desired *model.Config, p Pusher, doBackends, doServers bool) error {
	if !doBackends && !doServers {
		return nil
	}
	backends, servers := Bridge(running, desired)
	err := push(ctx, p, backends, servers, doBackends, doServers)
	var ae *ApplyError
	if errors.As(err, &ae) {
		ae.Stage = StageBridge
	}
	return err
}
