package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-ingress/kubectl-ingress/internal/textdiff"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// Exit statuses of "kubectl ingress diff".
const (
	diffExitNoChange = 0
	diffExitDynamic  = 1
	diffExitReload   = 2
	diffExitError    = exitFailure
	diffExitProblems = 4
)

const diffLong = `Show what a change to Ingress manifests does to nginx before it is merged: whether every
controller pod must reload nginx (nginx.conf changes) or the change applies through Lua without a
reload (endpoints, certificates, canary weights, balancing), with the reasons, the problems the
change introduces, a diff of the nginx.conf server blocks that change and a summary of the Lua
payload changes (names and counts only: never certificate or key contents).

Compare two manifest sets with --from OLD --to NEW (files, directories or - for stdin), or
compare the live cluster with the cluster plus the objects in -f NEW, as kubectl diff does.

Exit status:
  0  no change
  1  dynamic only (applied through Lua, no reload)
  2  reload required
  3  an error: unreadable input, bad flags, no access to the cluster
  4  new problems (with --fail-on=problems)
With --fail-on, the status is 0 unless the condition holds:
  --fail-on=reload    exit 2 only when a reload is required
  --fail-on=change    exit 1 or 2 on any change
  --fail-on=problems  exit 4 when the change introduces problems
  --fail-on=never     exit 0 whatever changes (errors still exit 3)`

const diffExample = `  # Will this branch reload nginx?
  kubectl ingress diff --from main-manifests/ --to manifests/

  # Against the live cluster (the objects the controller sees), like kubectl diff: the namespaces
  # the files name, the context's (or -n) for objects that name none, and the controller's ConfigMap
  kubectl ingress diff -f manifests/ -n shop

  # In CI: fail only when the change needs a reload; machine-readable report
  kubectl ingress diff --from old/ --to new/ --fail-on=reload -o json`

// DiffOptions are the flags of "kubectl ingress diff".
type DiffOptions struct {
	From, To      []string
	Filenames     []string
	Recursive     bool
	AllNamespaces bool
	Output        string
	Color         string
	FailOn        string
	Render        RenderFlags
	ConfigFlags   *genericclioptions.ConfigFlags

	genericiooptions.IOStreams
}

// NewCmdDiff builds "kubectl ingress diff".
func NewCmdDiff(streams genericiooptions.IOStreams) *cobra.Command {
	o := &DiffOptions{
		IOStreams:   streams,
		Render:      reportingRenderFlags(),
		ConfigFlags: genericclioptions.NewConfigFlags(true),
		Color:       "auto",
		FailOn:      "",
	}
	cmd := &cobra.Command{
		Use:     "diff (--from OLD --to NEW | -f NEW)",
		Short:   "Show whether a manifest change reloads nginx or applies through Lua, and why",
		Long:    diffLong,
		Example: diffExample,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return &exitError{code: diffExitError, err: err}
			}
			return o.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.From, "from", nil, "The manifests before the change: a file, a directory or - (repeatable)")
	f.StringSliceVar(&o.To, "to", nil, "The manifests after the change: a file, a directory or - (repeatable)")
	f.StringSliceVarP(&o.Filenames, "filename", "f", nil, "Manifests to compare with the live cluster (repeatable)")
	f.BoolVarP(&o.Recursive, "recursive", "R", false, "Read directories recursively")
	f.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "With -f: read the live objects of every namespace (default: the namespaces the files name, -n or the context's, and the controller's ConfigMaps and default certificate)")
	f.StringVarP(&o.Output, "output", "o", "", "Output format: empty for text, json or yaml")
	f.StringVar(&o.Color, "color", o.Color, "Colour the text diff: auto (on a terminal, unless NO_COLOR is set or TERM=dumb), always or never")
	f.StringVar(&o.FailOn, "fail-on", "", "Exit non-zero only for: reload, change, problems or never (default: the verdict's status)")
	o.Render.AddFlags(f)
	o.ConfigFlags.AddFlags(f)
	return cmd
}

// Validate checks the flags.
func (o *DiffOptions) Validate() error {
	live := len(o.Filenames) > 0
	files := len(o.From) > 0 || len(o.To) > 0
	switch {
	case live && files:
		return fmt.Errorf("give either --from and --to, or -f (against the live cluster), not both")
	case files && (len(o.From) == 0 || len(o.To) == 0):
		return fmt.Errorf("--from and --to go together")
	case !live && !files:
		return fmt.Errorf("nothing to compare: give --from OLD --to NEW, or -f NEW")
	}
	switch o.Output {
	case "", "json", "yaml":
	default:
		return fmt.Errorf("--output must be json or yaml, got %q", o.Output)
	}
	switch o.Color {
	case "auto", "always", "never":
	default:
		return fmt.Errorf("--color must be auto, always or never, got %q", o.Color)
	}
	switch o.FailOn {
	case "", "reload", "change", "problems", "never":
	default:
		return fmt.Errorf("--fail-on must be reload, change, problems or never, got %q", o.FailOn)
	}
	return o.Render.Validate()
}

// Run compares and reports; the returned error carries the exit status.
func (o *DiffOptions) Run(ctx context.Context) error {
	stop := startProgress(o.ErrOut, "reading and rendering both sides")
	oldSnap, newSnap, err := o.snapshots(ctx)
	if err != nil {
		stop()
		return &exitError{code: diffExitError, err: err}
	}
	old, cur, err := renderPair(oldSnap, newSnap, o.Render)
	stop()
	if err != nil {
		return &exitError{code: diffExitError, err: err}
	}
	report := newDiffReport(old, cur)
	if err := o.print(report); err != nil {
		return &exitError{code: diffExitError, err: err}
	}
	if code := o.exitCode(report); code != 0 {
		return &exitError{code: code, err: fmt.Errorf("%s", report.Verdict), silent: true}
	}
	return nil
}

// renderPair renders both sides as the controller would write them: the
// old side as its first start, the new side as the sync that follows it,
// whose shared dicts keep the old side's sizes unless the payloads need
// new ones (luaapi.DictsFor). So a resize shows as a reload with its
// reason, as the controller would reload for it. The two sides build in
// parallel; the new side sizes its dicts once the old side's are known.
func renderPair(oldSnap, newSnap render.Snapshot, f RenderFlags) (old, cur *rendered, err error) {
	var oldErr, oldConfErr error
	sized := make(chan struct{}) // old.Dicts or oldErr is set
	done := make(chan struct{})  // old.NGINXConf or oldConfErr is set
	go func() {
		defer close(done)
		old, oldErr = buildBundle(oldSnap, f)
		if oldErr == nil {
			oldErr = old.sizeDicts(luaapi.DictSizes{})
		}
		close(sized)
		if oldErr == nil {
			oldConfErr = old.writeConf(f)
		}
	}()
	cur, err = buildBundle(newSnap, f)
	<-sized
	if err == nil && oldErr == nil {
		if err = cur.sizeDicts(old.Dicts); err == nil {
			err = cur.writeConf(f)
		}
	}
	<-done
	for _, e := range []error{oldErr, oldConfErr, err} {
		if e != nil {
			return nil, nil, e
		}
	}
	return old, cur, nil
}

func (o *DiffOptions) snapshots(ctx context.Context) (render.Snapshot, render.Snapshot, error) {
	ns := o.namespace()
	if len(o.Filenames) > 0 {
		files, err := manifest.Read(o.Filenames, manifest.Options{Recursive: o.Recursive, DefaultNamespace: ns, Stdin: o.In})
		if err != nil {
			return render.Snapshot{}, render.Snapshot{}, err
		}
		live, err := o.liveSnapshot(ctx, ns, files.Snapshot)
		if err != nil {
			return render.Snapshot{}, render.Snapshot{}, err
		}
		return live, overlay(live, files.Snapshot), nil
	}
	type result struct {
		res *manifest.Result
		err error
	}
	read := func(paths []string) result {
		r, err := manifest.Read(paths, manifest.Options{Recursive: o.Recursive, DefaultNamespace: ns, Stdin: o.In})
		return result{r, err}
	}
	ch := make(chan result, 1)
	go func() { ch <- read(o.From) }()
	to := read(o.To)
	from := <-ch
	if from.err != nil {
		return render.Snapshot{}, render.Snapshot{}, fmt.Errorf("--from: %w", from.err)
	}
	if to.err != nil {
		return render.Snapshot{}, render.Snapshot{}, fmt.Errorf("--to: %w", to.err)
	}
	return from.res.Snapshot, to.res.Snapshot, nil
}

// namespace is kubectl's: -n, else the namespace of the kubeconfig's
// context, else "default".
func (o *DiffOptions) namespace() string {
	if o.ConfigFlags.Namespace != nil && *o.ConfigFlags.Namespace != "" {
		return *o.ConfigFlags.Namespace
	}
	if ns, _, err := o.ConfigFlags.ToRawKubeConfigLoader().Namespace(); err == nil && ns != "" {
		return ns
	}
	return manifest.DefaultNamespace
}

func (o *DiffOptions) exitCode(r *diffReport) int {
	verdict := diffExitNoChange
	switch r.plan.Verdict {
	case ksync.DynamicOnly:
		verdict = diffExitDynamic
	case ksync.ReloadRequired:
		verdict = diffExitReload
	}
	switch o.FailOn {
	case "":
		return verdict
	case "reload":
		if verdict == diffExitReload {
			return verdict
		}
	case "change":
		return verdict
	case "problems":
		if len(r.Problems.Introduced) > 0 {
			return diffExitProblems
		}
	}
	return 0
}

func (o *DiffOptions) print(r *diffReport) error {
	switch o.Output {
	case "json":
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(o.Out, "%s\n", b)
		return err
	case "yaml":
		b, err := yaml.Marshal(r)
		if err != nil {
			return err
		}
		_, err = o.Out.Write(b)
		return err
	}
	var color *textdiff.Colors
	if colorWanted(o.Color, o.Out, os.Getenv) {
		color = textdiff.ANSI
	}
	_, err := io.WriteString(o.Out, r.text(color))
	return err
}

// text is the report for a person: the verdict first.
func (r *diffReport) text(color *textdiff.Colors) string {
	var b strings.Builder
	b.WriteString("Verdict: " + r.Verdict + "\n")
	if len(r.Reasons) > 0 {
		b.WriteString("\nReasons:\n")
		for _, reason := range r.Reasons {
			kind := "dynamic"
			if reason.Reload {
				kind = "reload "
			}
			b.WriteString("  " + kind + "  " + reason.Text + "\n")
		}
	}
	section := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		b.WriteString("\n" + title + ":\n")
		for _, l := range lines {
			b.WriteString("  " + l + "\n")
		}
	}
	section("Problems introduced by the change", r.Problems.Introduced)
	section("Problems fixed by the change", r.Problems.Fixed)
	section("Problems that remain", r.Problems.Remaining)
	if d := confDiff(r.oldConf, r.newConf, color); d != "" {
		b.WriteString("\nnginx.conf:\n--- a/nginx.conf\n+++ b/nginx.conf\n")
		b.WriteString(d)
	}
	if r.Routes != nil && len(r.Routes.Pushed)+len(r.Routes.Deleted) > 0 {
		b.WriteString("\nLua router (--routing=lua):\n")
		for _, h := range r.Routes.Pushed {
			b.WriteString("  host pushed   " + h + "\n")
		}
		for _, h := range r.Routes.Deleted {
			b.WriteString("  host deleted  " + h + "\n")
		}
	}
	if len(r.ClassicHosts) > 0 {
		var lines []string
		for _, host := range slices.Sorted(maps.Keys(r.ClassicHosts)) {
			lines = append(lines, host+": "+strings.Join(r.ClassicHosts[host], "; "))
		}
		section("Hosts with a classic server block (--routing=lua)", lines)
	}
	if len(r.Backends) > 0 || !r.Certificates.Empty() {
		b.WriteString("\nLua payloads:\n")
		for _, bc := range r.Backends {
			line := fmt.Sprintf("  backend %-8s %s (endpoints %d → %d)", bc.Change, bc.Name, bc.EndpointsBefore, bc.EndpointsAfter)
			if bc.AlternativeBackends != "" {
				line += ", canary " + bc.AlternativeBackends
			}
			b.WriteString(line + "\n")
		}
		for _, c := range []struct {
			kind string
			ids  []string
		}{{"added", r.Certificates.Added}, {"removed", r.Certificates.Removed}, {"rotated", r.Certificates.Changed}} {
			for _, id := range c.ids {
				b.WriteString(fmt.Sprintf("  certificate %-8s %s\n", c.kind, id))
			}
		}
	}
	return b.String()
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
