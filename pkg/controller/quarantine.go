package controller

// Quarantine: one tenant never blocks another.
//
// When nginx -t rejects the desired nginx.conf, the loop does not only hold
// it (which would block every later change of every tenant until someone
// found the culprit): it finds the Ingress that made nginx refuse, leaves it
// out, and loads the rest, in the same sync.
//
//   - Mapping. nginx names the line it refused ("… in nginx.conf.test-X:123",
//     nginx.TestError.Line). nginxconf.NGINXConfWithOwners writes the same bytes
//     again and says which Ingresses wrote the block around that line: a
//     location belongs to the Ingress of its path, a server block's own
//     lines (server_name, listen, the fallback location) to every Ingress
//     with a path on the host. One owner is the culprit outright, without a
//     test.
//   - Bisection. Several owners (a server line of a shared host), or a line
//     no Ingress wrote (nginx named none, or a global line: the server name
//     hash, the ConfigMap's values), are narrowed by nginx -t itself: the
//     candidates, newest first, are left out in growing prefixes (1, 2, 4 …,
//     then halving), and the shortest prefix whose config passes ends with
//     the culprit: about 2·log2(n) tests, one when the newest Ingress is the
//     culprit. When leaving out every candidate does not pass either, the
//     owners fall back to all Ingresses, and all Ingresses to "no culprit".
//   - Rounds. The config without the culprit is built and tested again;
//     when nginx names another culprit the search goes on, at most
//     maxQuarantineRounds rounds and maxQuarantineTests nginx -t in all.
//     A search of several rounds then lets back in, one test each, the
//     culprits of earlier rounds that the passing config does not need out
//     (nginx named an innocent's line while another Ingress was the cause).
//     Only a search that ends with a config nginx -t accepts quarantines
//     anything; otherwise (the global config fails by itself, too many
//     rounds) nothing is left out and the desired config is held as before
//     (loop.go: the running config keeps serving, retried on a change).
//
// Granularity: the whole Ingress. Its every rule, host and path leaves the
// config (render.Options.Quarantined): the object is what changes, what an
// Event and a Problem name and what its owner fixes, and serving part of it
// could serve a path without the siblings it was written with (a redirect,
// an allowlisted path). A host that other Ingresses share stays, with their
// paths; a host that only the culprit had is gone with it (the catch-all
// answers).
//
// Lifetime: an Ingress stays out while its content is the same: the
// fingerprint of its spec and annotations (what render reads), not its
// resourceVersion, which the status writer changes too and which files
// have none of. Any change of spec or annotations (or a delete) drops the
// entry and the Ingress is tried again with the next sync; if nginx still
// refuses it, it is quarantined again. Entries live in the loop's memory: a
// restarted controller finds the culprits again at its first sync.
//
// Cost: nothing while nginx -t accepts the desired config (NGINXConf does
// not record owners; no extra test runs). A quarantined Ingress costs one
// map lookup per Ingress per sync. Every config tested comes out of our
// writer (nginxconf.NGINXConf of a Build): nginx -t never sees other bytes.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// Tester runs nginx -t on a config (*nginx.Instance implements it): nil
// when nginx accepts it, a *nginx.TestError when it refuses it. The loop
// quarantines only when its Nginx is a Tester too.
type Tester interface {
	Test(ctx context.Context, conf []byte) error
}

// Bounds of one quarantine search.
const (
	// maxQuarantineRounds is how many culprits one sync may find.
	maxQuarantineRounds = 8
	// maxQuarantineTests bounds the nginx -t runs of one search: a round
	// of bisection over 10,000 Ingresses takes about 28.
	maxQuarantineTests = 64
)

// errNoCulprit ends a search that found no Ingress whose absence makes
// nginx -t pass: the config fails without any of them.
var errNoCulprit = errors.New("no Ingress found whose absence makes nginx -t pass")

// quarantineEntry is an Ingress left out.
type quarantineEntry struct {
	// version is the fingerprint of the object when it was left out.
	version string
	// message is nginx's message that the Problem quotes.
	message string
	since   time.Time
}

// ingressFingerprint is what a quarantine entry is kept for: the digest
// of what render reads of an Ingress (spec and annotations).
func ingressFingerprint(ing *networkingv1.Ingress) string {
	data, err := json.Marshal(struct {
		Annotations map[string]string        `json:"a"`
		Spec        networkingv1.IngressSpec `json:"s"`
	}{ing.Annotations, ing.Spec})
	if err != nil {
		// Not expected for API types; a fresh value every time means the
		// entry never holds, so the Ingress is simply tried again.
		return "unmarshalable:" + err.Error()
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:12])
}

// ingressRef is the reference Problems and the quarantine use for ing.
func ingressRef(ing *networkingv1.Ingress) model.ObjectRef {
	return model.ObjectRef{Kind: "Ingress", Namespace: ing.Namespace, Name: ing.Name}
}

// quarantined returns render's Options.Quarantined for snap: the entries
// whose Ingress is in snap unchanged. The others (changed, deleted) are
// dropped, so their Ingress is tried again. nil when there are none.
func (c *Controller) quarantined(ctx context.Context, snap render.Snapshot) map[model.ObjectRef]string {
	s := &c.state
	if len(s.quarantine) == 0 {
		return nil
	}
	out := make(map[model.ObjectRef]string, len(s.quarantine))
	for _, ing := range snap.Ingresses {
		ref := ingressRef(ing)
		e, ok := s.quarantine[ref]
		if !ok {
			continue
		}
		if ingressFingerprint(ing) == e.version {
			out[ref] = e.message
		}
	}
	for ref, e := range s.quarantine {
		if _, kept := out[ref]; !kept {
			klog.FromContext(ctx).Info("Quarantined Ingress changed or was deleted; trying it again", "ingress", ref.String(), "quarantinedFor", time.Since(e.since).Round(time.Second))
			delete(s.quarantine, ref)
		}
	}
	c.metrics.quarantined.Set(float64(len(s.quarantine)))
	if len(out) == 0 {
		return nil
	}
	return out
}

// commitQuarantine records the culprits a search found.
func (c *Controller) commitQuarantine(snap render.Snapshot, culprits map[model.ObjectRef]string, now time.Time) {
	s := &c.state
	if s.quarantine == nil {
		s.quarantine = map[model.ObjectRef]quarantineEntry{}
	}
	for _, ing := range snap.Ingresses {
		ref := ingressRef(ing)
		if msg, ok := culprits[ref]; ok {
			s.quarantine[ref] = quarantineEntry{version: ingressFingerprint(ing), message: msg, since: now}
		}
	}
	c.metrics.quarantined.Set(float64(len(s.quarantine)))
}

// rejectedByTest returns the *nginx.TestError of an Apply whose reload (or
// start) nginx -t refused, nil for any other outcome.
func rejectedByTest(err error) *nginx.TestError {
	var te *nginx.TestError
	if !errors.As(err, &te) {
		return nil
	}
	return te
}

// culpritSearch finds the Ingresses to leave out of a config that nginx -t
// rejected so that the rest passes. It is used once, by one goroutine.
type culpritSearch struct {
	snap render.Snapshot
	// files writes the files of each config tested (nil: none to write).
	files ksync.FileWriter
	// build are the options of the rejected config; their Quarantined
	// (the entries in effect) are left out of every config tried.
	build render.Options
	// conf gives the nginx.conf options of a config, as the loop's sync
	// does (the Lua dicts are sized for the config).
	conf   func(*model.Config) nginxconf.ConfOptions
	tester Tester

	maxRounds, maxTests int

	// tests counts the nginx -t runs; culprits are the Ingresses found so
	// far, with nginx's message, in the order found.
	tests    int
	culprits map[model.ObjectRef]string
	order    []model.ObjectRef
}

// searchResult is a config that nginx -t accepted, without the culprits.
type searchResult struct {
	cfg      *model.Config
	problems []model.Problem
	conf     []byte
	culprits map[model.ObjectRef]string
	tests    int
}

func newCulpritSearch(snap render.Snapshot, build render.Options, conf func(*model.Config) nginxconf.ConfOptions, tester Tester) *culpritSearch {
	return &culpritSearch{
		snap: snap, build: build, conf: conf, tester: tester,
		maxRounds: maxQuarantineRounds, maxTests: maxQuarantineTests,
		culprits: map[model.ObjectRef]string{},
	}
}

// run starts from cfg, the config whose nginx.conf nginx -t rejected with
// rejected, and returns the first config found that passes. An error
// means none was found (errNoCulprit, too many rounds or tests, ctx, I/O):
// nothing is to be quarantined then.
func (q *culpritSearch) run(ctx context.Context, cfg *model.Config, rejected *nginx.TestError) (searchResult, error) {
	te := rejected
	for round := 1; round <= q.maxRounds; round++ {
		var owners *nginxconf.ConfOwners
		if te.Line > 0 {
			// The same bytes as the ones tested, with their owners.
			var err error
			if _, owners, err = nginxconf.NGINXConfWithOwners(cfg, q.conf(cfg)); err != nil {
				return searchResult{}, fmt.Errorf("quarantine: writing nginx.conf: %w", err)
			}
		}
		culprit, err := q.culprit(ctx, te, owners)
		if err != nil {
			return searchResult{}, fmt.Errorf("quarantine: round %d: %w", round, err)
		}
		q.culprits[culprit] = te.Message
		q.order = append(q.order, culprit)
		var problems []model.Problem
		var conf []byte
		cfg, problems, conf, err = q.render(nil)
		if err != nil {
			return searchResult{}, err
		}
		err = q.test(ctx, cfg, conf)
		if err == nil {
			res := searchResult{cfg: cfg, problems: problems, conf: conf, culprits: q.culprits}
			res = q.release(ctx, res)
			res.tests = q.tests
			return res, nil
		}
		if te = rejectedByTest(err); te == nil {
			return searchResult{}, err
		}
	}
	return searchResult{}, fmt.Errorf("quarantine: nginx -t still fails after %d culprits (%s)", len(q.culprits), refList(slices.Collect(maps.Keys(q.culprits))))
}

// release lets back in the culprits of earlier rounds that the passing
// config res does not need out (nginx named a line of one Ingress while
// another was the cause, and a later round found that one): one test each,
// only when a search took several rounds. The last culprit is needed: the
// config before it failed.
func (q *culpritSearch) release(ctx context.Context, res searchResult) searchResult {
	for _, ref := range q.order[:len(q.order)-1] {
		msg := q.culprits[ref]
		delete(q.culprits, ref)
		cfg, problems, conf, err := q.render(nil)
		if err == nil {
			err = q.test(ctx, cfg, conf)
		}
		if err != nil {
			q.culprits[ref] = msg
			continue
		}
		res = searchResult{cfg: cfg, problems: problems, conf: conf, culprits: q.culprits}
	}
	return res
}

// culprit names the Ingress that made nginx -t fail with te: the one owner
// of the line, else one found by bisection among the owners, else among
// all the Ingresses still in the config.
func (q *culpritSearch) culprit(ctx context.Context, te *nginx.TestError, owners *nginxconf.ConfOwners) (model.ObjectRef, error) {
	if te.Line > 0 {
		if block, ok := owners.At(te.Line); ok {
			cands := q.notOut(block.Ingresses)
			if len(cands) == 1 {
				return cands[0], nil
			}
			if len(cands) > 1 {
				ref, err := q.bisect(ctx, q.newestFirst(cands))
				if !errors.Is(err, errNoCulprit) {
					return ref, err
				}
			}
		}
	}
	return q.bisect(ctx, q.newestFirst(q.notOut(q.served())))
}

// bisect finds an Ingress of cands that nginx -t needs left out: with
// cands[:k] left out the config passes and with cands[:k-1] it fails, so
// cands[k-1] is a culprit (given the others before it). It tries all of
// cands first (one test, a small config), then prefixes 1, 2, 4 … and
// halves the last gap. The config with none left out is known to fail.
func (q *culpritSearch) bisect(ctx context.Context, cands []model.ObjectRef) (model.ObjectRef, error) {
	if len(cands) == 0 {
		return model.ObjectRef{}, errNoCulprit
	}
	passes := func(k int) (bool, error) {
		cfg, _, conf, err := q.render(cands[:k])
		if err != nil {
			return false, err
		}
		err = q.test(ctx, cfg, conf)
		if err != nil && rejectedByTest(err) == nil {
			return false, err
		}
		return err == nil, nil
	}
	ok, err := passes(len(cands))
	if err != nil {
		return model.ObjectRef{}, err
	}
	if !ok {
		return model.ObjectRef{}, errNoCulprit
	}
	lo, hi := 0, len(cands) // fails with cands[:lo] out, passes with cands[:hi] out
	for k := 1; k < hi; k *= 2 {
		if ok, err = passes(k); err != nil {
			return model.ObjectRef{}, err
		}
		if ok {
			hi = k
			break
		}
		lo = k
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok, err = passes(mid); err != nil {
			return model.ObjectRef{}, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	return cands[hi-1], nil
}

// render builds the snapshot without the quarantined Ingresses, the
// culprits found so far and also, and writes its nginx.conf.
func (q *culpritSearch) render(also []model.ObjectRef) (*model.Config, []model.Problem, []byte, error) {
	o := q.build
	o.Quarantined = make(map[model.ObjectRef]string, len(q.build.Quarantined)+len(q.culprits)+len(also))
	maps.Copy(o.Quarantined, q.build.Quarantined)
	maps.Copy(o.Quarantined, q.culprits)
	for _, ref := range also {
		o.Quarantined[ref] = "left out while looking for the Ingress nginx -t refuses"
	}
	cfg, problems := render.Build(q.snap, o)
	conf, err := nginxconf.NGINXConf(cfg, q.conf(cfg))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("quarantine: writing nginx.conf: %w", err)
	}
	return cfg, problems, conf, nil
}

// test runs nginx -t within the search's budget, after writing the files
// that cfg names (nginx -t reads them; a config without an Ingress may
// name a file the desired one did not: the CA of a younger Ingress of the
// host).
func (q *culpritSearch) test(ctx context.Context, cfg *model.Config, conf []byte) error {
	if q.tests >= q.maxTests {
		return fmt.Errorf("quarantine: gave up after %d nginx -t runs", q.tests)
	}
	q.tests++
	if err := ksync.WriteFiles(ctx, q.files, cfg); err != nil {
		return err
	}
	return q.tester.Test(ctx, conf)
}

// served are the Ingresses of our class in the snapshot (canaries too).
func (q *culpritSearch) served() []model.ObjectRef {
	ings := render.IngressesOfClass(q.snap, q.build)
	refs := make([]model.ObjectRef, 0, len(ings))
	for _, ing := range ings {
		refs = append(refs, ingressRef(ing))
	}
	return refs
}

// notOut drops the refs that are already left out.
func (q *culpritSearch) notOut(refs []model.ObjectRef) []model.ObjectRef {
	var out []model.ObjectRef
	for _, r := range refs {
		_, quarantined := q.build.Quarantined[r]
		_, found := q.culprits[r]
		if !quarantined && !found {
			out = append(out, r)
		}
	}
	return out
}

// newestFirst sorts refs by their Ingress's creationTimestamp, newest
// first (a config that passed before is most likely broken by what came
// last), then by namespace and name.
func (q *culpritSearch) newestFirst(refs []model.ObjectRef) []model.ObjectRef {
	created := make(map[model.ObjectRef]time.Time, len(refs))
	for _, ing := range q.snap.Ingresses {
		created[ingressRef(ing)] = ing.CreationTimestamp.Time
	}
	out := slices.Clone(refs)
	slices.SortStableFunc(out, func(a, b model.ObjectRef) int {
		if c := created[b].Compare(created[a]); c != 0 {
			return c
		}
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

func refList(refs []model.ObjectRef) string {
	names := make([]string, 0, len(refs))
	for _, r := range refs {
		names = append(names, r.String())
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// quarantine is called when Apply failed with applyErr: when nginx -t
// rejected cfg (built from snap with build, written with the options
// confFor gives), it searches for the culprits
// and returns a config without them that nginx -t accepts, with the
// culprits recorded as quarantined. ok is false when the error was not
// nginx -t's, when nginx is no Tester, or when the search found nothing:
// the caller then holds the config as before.
func (c *Controller) quarantine(ctx context.Context, snap render.Snapshot, build render.Options, confFor func(*model.Config) nginxconf.ConfOptions, cfg *model.Config, applyErr error) (searchResult, bool) {
	te := rejectedByTest(applyErr)
	tester, isTester := c.cfg.Nginx.(Tester)
	if te == nil || !isTester {
		return searchResult{}, false
	}
	log := klog.FromContext(ctx)
	start := time.Now()
	log.Info("nginx -t rejected the desired config; looking for the Ingress that causes it", "message", te.Message, "line", te.Line)
	search := newCulpritSearch(snap, build, confFor, tester)
	search.files = c.cfg.Files
	res, err := search.run(ctx, cfg, te)
	if err != nil {
		log.Error(err, "No Ingress to quarantine: the desired config is held, the running one keeps serving", "duration", time.Since(start).Round(time.Millisecond))
		return searchResult{}, false
	}
	// The rejected config was a failed reload (or start), as before.
	c.metrics.reloadErrors.Inc()
	c.commitQuarantine(snap, res.culprits, start)
	for ref, msg := range res.culprits {
		log.Info("Quarantined", "ingress", ref.String(), "message", msg)
	}
	log.Info("Found the Ingresses that nginx -t refuses; loading the rest", "quarantined", refList(slices.Collect(maps.Keys(res.culprits))),
		"tests", res.tests, "duration", time.Since(start).Round(time.Millisecond))
	return res, true
}
