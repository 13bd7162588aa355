package releasecheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// repoFile reads a file of the repository (this package is two levels down).
func repoFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func parseRepoDockerfile(t *testing.T) *Dockerfile {
	t.Helper()
	d, err := ParseDockerfile("Dockerfile", repoFile(t, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The image must run on the packages that `make deps` installs and every
// nginx test runs on: no more, no fewer. Build-only packages are allowed
// when the Dockerfile purges them again.
func TestDockerfilePackagesAreThoseOfDeps(t *testing.T) {
	deps, err := DepsPackages("hack/deps.sh", repoFile(t, "hack/deps.sh"))
	if err != nil {
		t.Fatal(err)
	}
	got := parseRepoDockerfile(t).Final().RuntimePackages()
	missing := slices.DeleteFunc(slices.Clone(deps), func(p string) bool { return slices.Contains(got, p) })
	extra := slices.DeleteFunc(slices.Clone(got), func(p string) bool { return slices.Contains(deps, p) })
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("Dockerfile's apt packages differ from hack/deps.sh's packages=(…):\n  in deps.sh, not in the image: %v\n  in the image, not in deps.sh: %v", missing, extra)
	}
}

func TestDockerfileImage(t *testing.T) {
	d := parseRepoDockerfile(t)
	final := d.Final()
	if final.From != "debian:bookworm-slim" {
		t.Errorf("the shipped stage (line %d) is FROM %s, want debian:bookworm-slim (the Debian release of hack/deps.sh's packages)", final.Line, final.From)
	}

	user, ok := final.Last("USER")
	if !ok {
		t.Fatal("the shipped stage sets no USER: the image would run as root")
	}
	// Numeric, so that Kubernetes' runAsNonRoot can verify it.
	for _, id := range strings.Split(user.Args, ":") {
		n, err := strconv.Atoi(id)
		if err != nil || n == 0 {
			t.Errorf("line %d: USER %s: want a numeric non-root uid[:gid]", user.Line, user.Args)
		}
	}

	ep, ok := final.Last("ENTRYPOINT")
	if !ok {
		t.Fatal("the shipped stage has no ENTRYPOINT")
	}
	argv, err := ExecForm(ep)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(argv, []string{"/kubectl-ingress", "controller"}) {
		t.Errorf("ENTRYPOINT %q, want [/kubectl-ingress controller]", argv)
	}

	// Only the capability to bind 80/443, on nginx (which binds them) and on
	// the controller (which execs nginx; see the Dockerfile's comment).
	var runs strings.Builder
	for _, in := range final.Instructions {
		if in.Cmd == "RUN" {
			runs.WriteString(in.Args + "\n")
		}
	}
	for _, bin := range []string{"/usr/sbin/nginx", "/kubectl-ingress"} {
		if !strings.Contains(runs.String(), "setcap cap_net_bind_service=+ep "+bin) {
			t.Errorf("no `setcap cap_net_bind_service=+ep %s` in the shipped stage", bin)
		}
	}
	if c := regexp.MustCompile(`setcap (\S+)`).FindAllStringSubmatch(runs.String(), -1); len(c) != 2 {
		t.Errorf("want exactly the two setcap above, got %v", c)
	}
}

// The builder image's Go must be the one go.mod asks for.
func TestDockerfileBuilderGo(t *testing.T) {
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(repoFile(t, "go.mod"))
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	want := "golang:" + string(m[1]) + "-bookworm"
	d := parseRepoDockerfile(t)
	builders := 0
	for _, s := range d.Stages[:len(d.Stages)-1] {
		if !strings.Contains(s.From, "golang:") {
			continue
		}
		builders++
		if s.From != want {
			t.Errorf("line %d: FROM %s, want %s (go.mod's go %s)", s.Line, s.From, want, m[1])
		}
	}
	if builders == 0 {
		t.Errorf("no golang builder stage found: want FROM %s", want)
	}
}

// Every RUN (shell form) must at least parse as the /bin/sh -c script that
// docker runs: a lost backslash or quote shows here, not in a release.
func TestDockerfileRunScriptsParse(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	n := 0
	for _, s := range parseRepoDockerfile(t).Stages {
		for _, in := range s.Instructions {
			if in.Cmd != "RUN" || strings.HasPrefix(in.Args, "[") {
				continue
			}
			n++
			if out, err := exec.Command(sh, "-n", "-c", in.Args).CombinedOutput(); err != nil {
				t.Errorf("Dockerfile:%d: RUN does not parse as a shell script: %v: %s", in.Line, err, out)
			}
		}
	}
	if n < 3 {
		t.Errorf("checked %d RUN instructions, want the Dockerfile's 3 or more", n)
	}
}
