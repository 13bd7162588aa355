package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/controller"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginxconf"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

const renderExample = `  # Render the examples shipped with kubectl-ingress to a directory and check them with nginx -t
  kubectl ingress render -f examples/ --output-dir out/ --validate

  # Render manifests from stdin and print nginx.conf, backends and servers
  kubectl kustomize overlays/prod | kubectl ingress render -f -

  # Only the server block of one host, or the whole result as JSON
  kubectl ingress render -f examples/ -o nginx --host shop.example.com
  kubectl ingress render -f examples/ -o json | jq '.problems'

  # Fail a CI job when any Ingress has a problem
  kubectl ingress render -R -f manifests/ --fail-on-problems`

// RenderOptions are the flags of "kubectl ingress render".
type RenderOptions struct {
	Manifests ManifestFlags
	Render    RenderFlags

	OutputDir      string
	Output         string
	Host           string
	RunNginxTest   bool
	FailOnProblems bool
	NginxBinary    string

	genericiooptions.IOStreams
}

// NewCmdRender builds "kubectl ingress render".
func NewCmdRender(streams genericiooptions.IOStreams) *cobra.Command {
	o := &RenderOptions{IOStreams: streams, Render: reportingRenderFlags(), Manifests: NewManifestFlags()}
	cmd := &cobra.Command{
		Use:   "render -f FILENAME [-o json|yaml|nginx] [--output-dir DIR] [--validate]",
		Short: "Render manifests to the nginx.conf and Lua payloads that nginx would run",
		Long: `Render Kubernetes manifests (Ingress, IngressClass, Service, EndpointSlice, Secret, ConfigMap)
into the nginx.conf, backends.json and servers.json that the controller would give nginx.

Problems in the input (a bad annotation, a missing Service, a host claimed twice) are printed to
stderr as "kind namespace/name: field: reason" lines; the rest of the configuration is still built.
Input left out is reported the same way, with a reason that starts with "skipped:": an Ingress of
another class (or of no class when none is served), an extensions/v1beta1 or networking.k8s.io/v1beta1
Ingress, a --configmap given but absent from the input. The summary line counts them apart.
servers.json names certificates by Secret and checksum: private keys are never written.
Input without a single object (an empty file, empty standard input) is an error.

-o is the output format, as in kubectl: the bundle (default: each file after a "#### NAME" line),
json or yaml (one document: the summary, the problems, nginx.conf and the payloads), or nginx
(nginx.conf alone; with --host, only the server blocks of that host). --output-dir DIR writes the
files into DIR instead (-o DIR, its old meaning, still works with a warning when DIR ends in "/" or
is a directory).

Exit status: 0 on success; 2 when --fail-on-problems is set and there are problems; 3 on an
error (bad flags, unreadable or empty input, nginx -t refused the configuration).`,
		Example: renderExample,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.Manifests.AddFlags(cmd.Flags())
	o.Render.AddFlags(cmd.Flags())
	cmd.Flags().StringVarP(&o.OutputDir, "output-dir", "d", "", "Write nginx.conf, backends.json, servers.json, problems.txt (and stream.json with TCP/UDP services or SSL passthrough, and files/ with the htpasswd files and CA bundles nginx.conf names, 0600, a note in place of a private key) to this directory instead of stdout")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: empty for the bundle of files, json, yaml, or nginx (nginx.conf alone)")
	cmd.Flags().StringVar(&o.Host, "host", "", "With -o nginx: only the server blocks of this host")
	cmd.Flags().BoolVar(&o.RunNginxTest, "validate", false, "Check the rendered nginx.conf with a real 'nginx -t'")
	cmd.Flags().BoolVar(&o.FailOnProblems, "fail-on-problems", false, "Exit with status 2 when any object has a problem")
	cmd.Flags().StringVar(&o.NginxBinary, "nginx-binary", "nginx", "The nginx binary used by --validate; for the default, $"+envNginxBinary+", then nginx on PATH, then OpenResty's and Homebrew's usual places")
	return cmd
}

// renderFormats are the values of render's -o.
var renderFormats = []string{"json", "yaml", "nginx"}

// Complete takes -o DIR, render's old meaning of -o, as --output-dir with
// a warning, when DIR cannot be read as a format.
func (o *RenderOptions) Complete() error {
	if o.Output == "" || slices.Contains(renderFormats, o.Output) || o.OutputDir != "" {
		return nil
	}
	if strings.HasSuffix(o.Output, "/") || strings.HasSuffix(o.Output, string(filepath.Separator)) || isDir(o.Output) {
		fmt.Fprintf(o.ErrOut, "warning: -o DIR is deprecated, -o is the output format now: use --output-dir %s\n", o.Output)
		o.OutputDir, o.Output = o.Output, ""
	}
	return nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// Validate checks the flags.
func (o *RenderOptions) Validate() error {
	if o.Output != "" && !slices.Contains(renderFormats, o.Output) {
		return &usageError{err: fmt.Errorf("--output must be json, yaml or nginx, got %q (to write the files to a directory: --output-dir %s)", o.Output, o.Output)}
	}
	if o.Host != "" && o.Output != "nginx" {
		return &usageError{err: errors.New("--host goes with -o nginx")}
	}
	if err := o.Manifests.Validate(); err != nil {
		return err
	}
	return o.Render.Validate()
}

// Run renders and writes the result.
func (o *RenderOptions) Run(ctx context.Context) error {
	stop := startProgress(o.ErrOut, "reading and rendering the manifests")
	res, err := o.Manifests.Read(o.In)
	if err == nil {
		err = requireObjects(res)
	}
	var out *rendered
	if err == nil {
		out, err = renderBundle(res.Snapshot, o.Render)
	}
	stop()
	if err != nil {
		return err
	}
	for _, p := range out.Problems {
		fmt.Fprintln(o.ErrOut, p.String())
	}
	for _, n := range out.notices() {
		fmt.Fprintln(o.ErrOut, n)
	}
	summary := out.summary(res.Summary())
	fmt.Fprintln(o.ErrOut, summary)
	if o.OutputDir != "" {
		if err := out.writeDir(o.OutputDir); err != nil {
			return err
		}
	}
	if err := o.print(out, summary); err != nil {
		return err
	}
	if o.RunNginxTest {
		// the conf for this machine's nginx first (written again when its
		// modules differ from the printed one's: at 100,000 Ingresses longer
		// than nginx -t itself), then the time of nginx -t alone
		binary, conf, err := o.localConf(ctx, out)
		if err != nil {
			return err
		}
		start := time.Now()
		stop := startProgress(o.ErrOut, "nginx -t: checking the configuration")
		err = validateConfFiles(ctx, binary, conf, out.Config.Files)
		stop()
		if err != nil {
			return err
		}
		fmt.Fprintf(o.ErrOut, "nginx -t: the configuration is valid (%.2f s)\n", time.Since(start).Seconds())
	}
	if o.FailOnProblems && len(out.Problems) > 0 {
		return &exitError{code: exitVerdict, err: fmt.Errorf("%d problem(s) found", len(out.Problems))}
	}
	return nil
}

// rendered is everything render produces for one snapshot.
type rendered struct {
	Config    *model.Config
	Problems  []model.Problem
	NGINXConf []byte
	Backends  []byte // backends.json
	Servers   []byte // servers.json, certificates by reference
	// Stream is stream.json, the endpoints of the TCP/UDP services and
	// SSL passthrough hosts; nil when the config has no stream servers.
	Stream []byte
	// Dicts are the sizes of the shared dicts of the Lua payloads in
	// NGINXConf.
	Dicts luaapi.DictSizes
	// Routes is routes.json, the route payloads of the hosts the Lua
	// router serves (--routing=lua); nil in classic mode. Classic are the
	// hosts that keep a server block in that mode, each with why.
	Routes  []byte
	Classic map[string][]nginxconf.ClassicReason
	// state is what the controller would plan with: the model, NGINXConf
	// and the route payloads.
	state ksync.State
}

// renderBundle renders s as the controller would at its first start: the
// shared dicts sized for the payloads with no running nginx.conf.
func renderBundle(s render.Snapshot, f RenderFlags) (*rendered, error) {
	r, err := buildBundle(s, f)
	if err != nil {
		return nil, err
	}
	if err := r.sizeDicts(luaapi.DictSizes{}); err != nil {
		return nil, err
	}
	if err := r.writeConf(f); err != nil {
		return nil, err
	}
	return r, nil
}

// validateReadBuild validates the flags, reads the manifests (failing on
// input without a single object) and builds the model and payloads, all
// but nginx.conf (buildBundle): the first steps of lint and ingresses.
func (o *RenderOptions) validateReadBuild() (*manifest.Result, *rendered, error) {
	if err := o.Validate(); err != nil {
		return nil, nil, err
	}
	stop := startProgress(o.ErrOut, "reading and rendering the manifests")
	defer stop()
	res, err := o.Manifests.Read(o.In)
	if err != nil {
		return nil, nil, err
	}
	if err := requireObjects(res); err != nil {
		return nil, nil, err
	}
	r, err := buildBundle(res.Snapshot, o.Render)
	if err != nil {
		return nil, nil, err
	}
	return res, r, nil
}

// buildBundle builds the model and the payloads of s, all but nginx.conf
// (sizeDicts, then writeConf).
func buildBundle(s render.Snapshot, f RenderFlags) (*rendered, error) {
	cfg, problems := render.Build(s, f.BuildOptions())
	backends, servers := luaapi.FromModel(cfg)
	bj, err := jsonLines(backends)
	if err != nil {
		return nil, fmt.Errorf("encoding backends: %w", err)
	}
	sj, err := json.MarshalIndent(servers.Redacted(), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding servers: %w", err)
	}
	r := &rendered{Config: cfg, Problems: problems, Backends: bj, Servers: append(sj, '\n')}
	if !cfg.Stream.Empty() {
		st, err := json.MarshalIndent(luaapi.StreamFromModel(cfg), "", "  ")
		if err != nil {
			return nil, fmt.Errorf("encoding the stream payload: %w", err)
		}
		r.Stream = append(st, '\n')
	}
	return r, nil
}

// sizeDicts sizes the shared dicts of r's payloads as the controller does
// (luaapi.DictsFor), given the sizes of the nginx.conf that runs (zero:
// none runs, the controller's first start).
func (r *rendered) sizeDicts(running luaapi.DictSizes) error {
	d, err := luaapi.DictsFor(r.Config, running)
	if err != nil {
		return fmt.Errorf("sizing the Lua shared dicts: %w", err)
	}
	r.Dicts = d
	return nil
}

// writeConf writes r's nginx.conf with the dicts of sizeDicts.
func (r *rendered) writeConf(f RenderFlags) error {
	o := f.ConfOptions()
	// nginxconf.LuaDicts and luaapi.DictSizes have the same fields: a
	// conversion, checked by the compiler.
	o.LuaDicts = nginxconf.LuaDicts(r.Dicts)
	state, err := ksync.DesiredState(r.Config, o)
	if err != nil {
		return err
	}
	r.NGINXConf, r.state = state.NGINXConf, state
	if state.Routes == nil {
		return nil
	}
	if r.Routes, err = json.MarshalIndent(state.Routes, "", "  "); err != nil {
		return fmt.Errorf("encoding the routes: %w", err)
	}
	r.Routes = append(r.Routes, '\n')
	_, r.Classic = nginxconf.LuaHosts(r.Config)
	return nil
}

// jsonLines encodes a JSON array with one compact element per line: valid
// JSON that reads and diffs line by line, at a fraction of the cost of
// indenting 10,000 backends.
func jsonLines[T any](items []T) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(512 * (len(items) + 1))
	buf.WriteString("[")
	for i := range items {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
		b, err := json.Marshal(items[i])
		if err != nil {
			return nil, err
		}
		buf.Write(b)
	}
	buf.WriteString("\n]\n")
	return buf.Bytes(), nil
}

func (r *rendered) summary(input string) string {
	locations := 0
	for _, s := range r.Config.Servers {
		locations += len(s.Locations)
	}
	return fmt.Sprintf("%s; rendered %d servers, %d locations, %d backends, %d certificates; %s%d problem(s)",
		input, len(r.Config.Servers), locations, len(r.Config.Backends), len(r.Config.Certificates), skippedSummary(r.Problems), len(r.Problems))
}

// reportingRenderFlags are the render flags of render and diff, which
// report the input they leave out.
func reportingRenderFlags() RenderFlags {
	f := NewRenderFlags()
	f.ReportSkipped = true
	return f
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// skippedSummary counts the Problems of input left out, by cause:
// "skipped 2 Ingresses of other classes, 1 Ingress of an old API version,
// 1 absent ConfigMap; " ("" for none). They are among the problems counted
// after it, which --fail-on-problems acts on.
func skippedSummary(problems []model.Problem) string {
	var class, old, configMaps int
	for _, p := range problems {
		switch {
		case !render.IsSkipped(p):
		case p.Object.Kind == "ConfigMap":
			configMaps++
		case p.Field == "apiVersion":
			old++
		default:
			class++
		}
	}
	var parts []string
	if class > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", class, plural(class, "Ingress of another class", "Ingresses of other classes")))
	}
	if old > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", old, plural(old, "Ingress of an old API version", "Ingresses of old API versions")))
	}
	if configMaps > 0 {
		parts = append(parts, fmt.Sprintf("%d absent ConfigMap", configMaps))
	}
	if len(parts) == 0 {
		return ""
	}
	return "skipped " + strings.Join(parts, ", ") + "; "
}

func (r *rendered) problemsText() []byte {
	var b strings.Builder
	for _, p := range r.Problems {
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	for _, n := range r.notices() {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// notices are the lines that say what was applied without a Problem: each
// translated snippet ("notice: configuration-snippet of ns/name: 3
// directives translated: add_header ×3"), after the problems.
func (r *rendered) notices() []string {
	ns := render.SnippetNotices(r.Config)
	for _, host := range slices.Sorted(maps.Keys(r.Classic)) {
		reasons := make([]string, 0, len(r.Classic[host]))
		for _, reason := range r.Classic[host] {
			reasons = append(reasons, reason.String())
		}
		ns = append(ns, fmt.Sprintf("host %s keeps a classic server block (--routing=lua): %s", host, strings.Join(reasons, "; ")))
	}
	for i := range ns {
		ns[i] = "notice: " + ns[i]
	}
	return ns
}

// renderedFile is one file of the output.
type renderedFile struct {
	name string
	data []byte
}

// files are the payload files of the output: nginx.conf, the Lua
// payloads, and stream.json when there are stream servers.
func (r *rendered) files() []renderedFile {
	files := []renderedFile{
		{"nginx.conf", r.NGINXConf},
		{"backends.json", r.Backends},
		{"servers.json", r.Servers},
	}
	if r.Stream != nil {
		files = append(files, renderedFile{"stream.json", r.Stream})
	}
	if r.Routes != nil {
		files = append(files, renderedFile{"routes.json", r.Routes})
	}
	return append(files, r.confFiles()...)
}

// writeDir writes the files and problems.txt into dir, and removes a
// stream.json of an earlier render that this one has none of.
func (r *rendered) writeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating output directory: %w", err)
	}
	if err := os.RemoveAll(filepath.Join(dir, model.FilesDir)); err != nil {
		return fmt.Errorf("removing the files of an earlier render: %w", err)
	}
	for _, f := range append(r.files(), renderedFile{"problems.txt", r.problemsText()}) {
		perm := os.FileMode(0o644)
		if strings.HasPrefix(f.name, model.FilesDir+"/") {
			// htpasswd files and certificates, as the controller writes them.
			perm = 0o600
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f.name)), 0o755); err != nil {
				return fmt.Errorf("writing %s: %w", f.name, err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, perm); err != nil {
			return fmt.Errorf("writing %s: %w", f.name, err)
		}
	}
	for name, data := range map[string][]byte{"stream.json": r.Stream, "routes.json": r.Routes} {
		if data != nil {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing the stale %s: %w", name, err)
		}
	}
	return nil
}

func (r *rendered) writeBundle(w io.Writer) error {
	for _, p := range r.files() {
		if _, err := fmt.Fprintf(w, "#### %s\n%s", p.name, p.data); err != nil {
			return err
		}
	}
	return nil
}

// validateConf runs nginx -t on conf in a throwaway prefix laid out as the
// controller lays out its own.
// localConf finds the nginx of this machine and gives the nginx.conf of r
// for it: the same as printed, with this nginx's modules directory and
// without load_module for the modules it has built in (OpenResty).
func (o *RenderOptions) localConf(ctx context.Context, r *rendered) (string, []byte, error) {
	inst, err := detectNginx(ctx, o.NginxBinary)
	if err != nil {
		return "", nil, fmt.Errorf("validate: %w", err)
	}
	f := o.Render
	inst.apply(&f)
	if err := inst.check(f.ModulesDir); err != nil {
		return "", nil, fmt.Errorf("validate: %w", err)
	}
	if f.ModulesDir == o.Render.ModulesDir && slices.Equal(f.BuiltinModules, o.Render.BuiltinModules) {
		return inst.Binary, r.NGINXConf, nil
	}
	local := *r
	if err := local.writeConf(f); err != nil {
		return "", nil, err
	}
	return inst.Binary, local.NGINXConf, nil
}

func validateConf(ctx context.Context, binary string, conf []byte) error {
	return validateConfFiles(ctx, binary, conf, nil)
}

// validateConfFiles is validateConf with the files conf names (written
// with their real content, private keys too, in the throwaway prefix,
// which is removed after).
func validateConfFiles(ctx context.Context, binary string, conf []byte, files []model.File) error {
	dir, err := os.MkdirTemp("", "kubectl-ingress-validate-")
	if err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	defer os.RemoveAll(dir)
	in := nginx.New(dir, nginx.Options{Binary: binary})
	if err := in.Layout(); err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	if err := in.WriteFiles(ctx, controller.ToNginxFiles(files)); err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	if err := in.Test(ctx, conf); err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	return nil
}

var errNoInput = errors.New("no input: give at least one -f FILENAME (a file, a directory, or - for stdin)")
