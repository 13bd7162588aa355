package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/krew/pkg/index"
)

// The archives goreleaser makes (.goreleaser.yaml: name_template and
// format_overrides), one per platform.
var archives = []string{
	"kubectl-ingress_darwin_amd64.tar.gz", "kubectl-ingress_darwin_arm64.tar.gz",
	"kubectl-ingress_linux_amd64.tar.gz", "kubectl-ingress_linux_arm64.tar.gz",
	"kubectl-ingress_windows_amd64.zip", "kubectl-ingress_windows_arm64.zip",
}

func fakeChecksums(names []string) Checksums {
	sums := Checksums{}
	for _, n := range names {
		s := sha256.Sum256([]byte(n))
		sums[n] = hex.EncodeToString(s[:])
	}
	return sums
}

func krewTemplate(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", ".krew.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// validate runs krew's own validate-krew-manifest (a tool of this module)
// on a manifest, without installing it.
func validate(t *testing.T, manifest []byte) error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ingress.yaml")
	if err := os.WriteFile(path, manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "validate-krew-manifest", "-manifest", path, "-skip-install").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	return nil
}

func TestRenderReleaseManifest(t *testing.T) {
	sums := fakeChecksums(archives)
	r, err := Render(".krew.yaml", krewTemplate(t), "v1.2.3", sums, false)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Plugin
	if p.Name != "ingress" || p.Spec.Version != "v1.2.3" || p.Spec.ShortDescription == "" || p.Spec.Description == "" || p.Spec.Caveats == "" || p.Spec.Homepage == "" {
		t.Errorf("metadata/spec: %+v", p)
	}
	var seen []string
	for _, pl := range p.Spec.Platforms {
		goos, arch := pl.Selector.MatchLabels["os"], pl.Selector.MatchLabels["arch"]
		archive := pl.URI[strings.LastIndex(pl.URI, "/")+1:]
		seen = append(seen, archive)
		if !strings.HasPrefix(archive, "kubectl-ingress_"+goos+"_"+arch+".") {
			t.Errorf("%s/%s: uri %s is another platform's archive", goos, arch, pl.URI)
		}
		if want := "https://github.com/kubectl-ingress/kubectl-ingress/releases/download/v1.2.3/" + archive; pl.URI != want {
			t.Errorf("uri %s, want %s", pl.URI, want)
		}
		if pl.Sha256 != sums[archive] {
			t.Errorf("%s: sha256 %s, want %s", archive, pl.Sha256, sums[archive])
		}
		bin := "kubectl-ingress"
		if goos == "windows" {
			bin += ".exe"
		}
		if pl.Bin != bin || !slices.ContainsFunc(pl.Files, func(f index.FileOperation) bool { return f.From == "LICENSE" }) {
			t.Errorf("%s: bin %q files %+v", archive, pl.Bin, pl.Files)
		}
		// kubectl's plugin completion: the script (sh) is in every
		// archive of linux and darwin.
		if goos != "windows" && !slices.ContainsFunc(pl.Files, func(f index.FileOperation) bool { return f.From == "kubectl_complete-ingress" }) {
			t.Errorf("%s: no kubectl_complete-ingress in files %+v", archive, pl.Files)
		}
	}
	slices.Sort(seen)
	if !slices.Equal(seen, archives) {
		t.Errorf("platforms' archives %v, want %v", seen, archives)
	}
	if err := validate(t, r.Manifest); err != nil {
		t.Errorf("krew's validation: %v", err)
	}
}

// A snapshot builds one platform: with allowMissing the others are left
// out, and the result is still a valid manifest; without it, an error
// names the archive.
func TestRenderMissingChecksums(t *testing.T) {
	sums := fakeChecksums([]string{"kubectl-ingress_linux_amd64.tar.gz"})
	_, err := Render(".krew.yaml", krewTemplate(t), "v0.0.1", sums, false)
	if err == nil || !strings.Contains(err.Error(), "no checksum for kubectl-ingress_linux_arm64.tar.gz") {
		t.Fatalf("want an error naming the first archive without a checksum, got %v", err)
	}
	r, err := Render(".krew.yaml", krewTemplate(t), "v0.0.1", sums, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Plugin.Spec.Platforms) != 1 || len(r.Missing) != 5 || strings.Contains(string(r.Manifest), "creationTimestamp") {
		t.Errorf("platforms %d, missing %v, manifest:\n%s", len(r.Plugin.Spec.Platforms), r.Missing, r.Manifest)
	}
	if err := validate(t, r.Manifest); err != nil {
		t.Errorf("krew's validation: %v", err)
	}
}

// krew's validation is not a rubber stamp: a manifest of the same template
// with a bad sha256 or a platform without bin fails it.
func TestKrewValidationRejects(t *testing.T) {
	r, err := Render(".krew.yaml", krewTemplate(t), "v1.2.3", fakeChecksums(archives), false)
	if err != nil {
		t.Fatal(err)
	}
	s := fakeChecksums(archives)["kubectl-ingress_linux_amd64.tar.gz"]
	for name, bad := range map[string]string{
		"short sha256": strings.Replace(string(r.Manifest), s, s[:10], 1),
		"no bin":       strings.Replace(string(r.Manifest), "bin: kubectl-ingress.exe", "bin: \"\"", 1),
		"wrong name":   strings.Replace(string(r.Manifest), "name: ingress", "name: Ingress_Controller", 1),
	} {
		if bad == string(r.Manifest) {
			t.Fatalf("%s: the replacement changed nothing", name)
		}
		if err := validate(t, []byte(bad)); err == nil {
			t.Errorf("%s: krew's validation accepted it", name)
		}
	}
}

func TestRenderStrictTypes(t *testing.T) {
	tmpl := strings.Replace(string(krewTemplate(t)), "shortDescription:", "shortDescriptoin:", 1)
	_, err := Render(".krew.yaml", []byte(tmpl), "v1.2.3", fakeChecksums(archives), false)
	if err == nil || !strings.Contains(err.Error(), "shortDescriptoin") {
		t.Errorf("a misspelt field: want an error naming it, got %v", err)
	}
}

func TestParseChecksums(t *testing.T) {
	s := strings.Repeat("ab", 32)
	sums, err := ParseChecksums("checksums.txt", []byte(s+"  kubectl-ingress_linux_amd64.tar.gz\n\n"))
	if err != nil || sums["kubectl-ingress_linux_amd64.tar.gz"] != s {
		t.Errorf("%v %v", sums, err)
	}
	_, err = ParseChecksums("checksums.txt", []byte("xyz  a.tar.gz\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "checksums.txt:1: ") {
		t.Errorf("bad line: %v", err)
	}
}
