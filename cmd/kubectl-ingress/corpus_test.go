package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The migration corpus (testdata/corpus, see its README.md): real
// Ingresses and controller ConfigMaps from public repositories.
const corpusDir = "../../testdata/corpus"

// corpusFullySupported is the number of corpus Ingresses fully supported
// (rendered, nginx -t passes, no Problem) when it was last raised. It is a
// ratchet: it may only go up. When support grows, TestCorpus logs the new
// count ("corpus: N/215 Ingresses fully supported"): raise this constant
// to it in the same commit. CORPUS_LIST=1 logs the Ingresses it counts.
// (run.py counts one more: it cannot read the Problems of the Ingress
// named "<mesh ingress name>", whose name has spaces.)
const corpusFullySupported = 189

// corpusUnsupportedConfigKeys is the number of (ConfigMap, key) pairs of
// the corpus ConfigMaps whose key is not supported, unknown or a refused
// snippet when it was last lowered. A ratchet too: it may only go down;
// TestCorpus logs the new count.
const corpusUnsupportedConfigKeys = 8

// corpusArtifact matches the Problem that the corpus itself causes: every
// TLS Secret of the corpus holds one test certificate for example.com.
var corpusArtifact = regexp.MustCompile(`certificate of secret \S+ is not valid for host`)

// TestCorpus renders every case file and every ConfigMap of the corpus:
// none may panic, each nginx.conf must pass a real nginx -t, and the
// numbers of fully supported Ingresses and of unsupported ConfigMap keys
// may not get worse than the ratchets above. "Fully supported" is the
// definition of testdata/corpus/run.py: the Ingress's file renders and
// passes nginx -t, and the Ingress has no Problem (but the corpus
// artefact).
func TestCorpus(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join(corpusDir, "cases", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	configMaps, err := filepath.Glob(filepath.Join(corpusDir, "configmaps", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 190 || len(configMaps) < 20 {
		t.Fatalf("found %d case files and %d ConfigMaps under %s, want at least 190 and 20", len(cases), len(configMaps), corpusDir)
	}
	nginxtest.Require(t)

	var (
		mu          sync.Mutex
		ingresses   int
		full        []string // namespace/name of each fully supported Ingress, by file
		unsupported []string // file: key of each unsupported ConfigMap key
	)
	t.Run("cases", func(t *testing.T) {
		for _, path := range cases {
			t.Run(strings.TrimSuffix(filepath.Base(path), ".yaml"), func(t *testing.T) {
				t.Parallel()
				refs, ok := renderCorpusFile(t, path, "")
				mu.Lock()
				defer mu.Unlock()
				ingresses += len(refs)
				for ref, problems := range refs {
					if ok && problems == 0 {
						full = append(full, filepath.Base(path)+" "+ref)
					}
				}
			})
		}
	})
	t.Run("configmaps", func(t *testing.T) {
		for _, path := range configMaps {
			t.Run(strings.TrimSuffix(filepath.Base(path), ".yaml"), func(t *testing.T) {
				t.Parallel()
				keys := renderCorpusConfigMap(t, path)
				mu.Lock()
				defer mu.Unlock()
				for _, k := range keys {
					unsupported = append(unsupported, filepath.Base(path)+": "+k)
				}
			})
		}
	})
	if t.Failed() {
		return
	}
	sort.Strings(unsupported)
	if os.Getenv("CORPUS_LIST") != "" {
		sort.Strings(full)
		t.Logf("fully supported:\n%s", strings.Join(full, "\n"))
	}
	t.Logf("corpus: %d/%d Ingresses fully supported (ratchet corpusFullySupported = %d)", len(full), ingresses, corpusFullySupported)
	t.Logf("corpus: %d unsupported ConfigMap keys in %d ConfigMaps (ratchet corpusUnsupportedConfigKeys = %d):\n  %s",
		len(unsupported), len(configMaps), corpusUnsupportedConfigKeys, strings.Join(unsupported, "\n  "))
	if len(full) < corpusFullySupported {
		t.Errorf("only %d corpus Ingresses are fully supported, fewer than the %d reached before (corpusFullySupported): run testdata/corpus/run.sh to see which", len(full), corpusFullySupported)
	}
	if len(unsupported) > corpusUnsupportedConfigKeys {
		t.Errorf("%d unsupported keys in the corpus ConfigMaps, more than the %d reached before (corpusUnsupportedConfigKeys)", len(unsupported), corpusUnsupportedConfigKeys)
	}
}

// renderCorpusFile renders the manifests of path, with configMap as
// --configmap when not empty, and checks the nginx.conf with nginx -t. It
// returns the number of Problems (but the corpus artefact) of each Ingress
// of the file by namespace/name, Ingresses of every API version alike, and
// whether the file rendered and passed nginx -t. It returns the Problems
// of the ConfigMap too.
func renderCorpusFile(t *testing.T, path, configMap string) (map[string]int, bool) {
	refs, _, ok := renderCorpus(t, path, configMap)
	return refs, ok
}

func renderCorpus(t *testing.T, path, configMap string) (map[string]int, []model.Problem, bool) {
	t.Helper()
	res, err := manifest.Read([]string{path}, manifest.Options{})
	if err != nil {
		t.Errorf("reading %s: %v", path, err)
		return nil, nil, false
	}
	refs := map[string]int{}
	for _, ing := range res.Snapshot.Ingresses {
		refs[corpusRef(ing.Namespace, ing.Name)] = 0
	}
	for _, ing := range res.Snapshot.UnreadIngresses {
		refs[corpusRef(ing.Namespace, ing.Name)] = 0
	}
	flags := reportingRenderFlags()
	if configMap != "" {
		flags.ConfigMap = configMap
	}
	out, err := renderBundle(res.Snapshot, flags)
	if err != nil {
		t.Errorf("rendering %s: %v", path, err)
		return refs, nil, false
	}
	var cmProblems []model.Problem
	for _, p := range out.Problems {
		switch p.Object.Kind {
		case "Ingress":
			ref := corpusRef(p.Object.Namespace, p.Object.Name)
			if _, ok := refs[ref]; ok && !corpusArtifact.MatchString(p.Reason) {
				refs[ref]++
			}
		case "ConfigMap":
			cmProblems = append(cmProblems, p)
		}
	}
	if err := validateConfFiles(context.Background(), "nginx", out.NGINXConf, out.Config.Files); err != nil {
		t.Errorf("nginx -t failed on the nginx.conf of %s: %v", path, err)
		return refs, cmProblems, false
	}
	return refs, cmProblems, true
}

// renderCorpusConfigMap renders the ConfigMap file path with its ConfigMap
// as --configmap and returns "key (reason)" of each key that is not
// supported, unknown or a refused snippet.
func renderCorpusConfigMap(t *testing.T, path string) []string {
	t.Helper()
	res, err := manifest.Read([]string{path}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Snapshot.ConfigMaps) != 1 {
		t.Fatalf("%s holds %d ConfigMaps, want 1", path, len(res.Snapshot.ConfigMaps))
	}
	cm := res.Snapshot.ConfigMaps[0]
	if len(cm.Data) == 0 {
		t.Fatalf("%s: the ConfigMap has no data", path)
	}
	_, problems, _ := renderCorpus(t, path, cm.Namespace+"/"+cm.Name)
	var keys []string
	for _, p := range problems {
		if p.Object.Name != cm.Name || p.Object.Namespace != cm.Namespace {
			continue
		}
		r := strings.ToLower(p.Reason)
		if strings.Contains(r, "not supported") || strings.Contains(r, "not implemented") ||
			strings.Contains(r, "unknown key") || strings.Contains(r, "snippet") {
			keys = append(keys, p.Field)
		}
	}
	return keys
}

// corpusRef is namespace/name, namespace "default" when empty, as run.py
// names an Ingress.
func corpusRef(namespace, name string) string {
	if namespace == "" {
		namespace = "default"
	}
	return namespace + "/" + name
}
