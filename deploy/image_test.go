package deploy_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/internal/releasecheck"
)

// dockerfile is the controller image's Dockerfile (no Docker engine here:
// the Deployment is held to what the file says).
const dockerfile = "../Dockerfile"

// finalStage returns the instructions of the Dockerfile's last stage.
func finalStage(t *testing.T) []releasecheck.Instruction {
	t.Helper()
	data, err := os.ReadFile(dockerfile)
	if err != nil {
		t.Fatal(err)
	}
	d, err := releasecheck.ParseDockerfile(dockerfile, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Stages) == 0 {
		t.Fatalf("%s has no stage", dockerfile)
	}
	return d.Stages[len(d.Stages)-1].Instructions
}

// instruction returns the arguments of the last cmd of the final stage.
func instruction(t *testing.T, cmd string) (releasecheck.Instruction, bool) {
	t.Helper()
	var found releasecheck.Instruction
	ok := false
	for _, in := range finalStage(t) {
		if in.Cmd == cmd {
			found, ok = in, true
		}
	}
	return found, ok
}

// imageEntrypoint is the final stage's ENTRYPOINT (exec form).
func imageEntrypoint(t *testing.T) []string {
	t.Helper()
	in, ok := instruction(t, "ENTRYPOINT")
	if !ok {
		t.Fatalf("%s has no ENTRYPOINT", dockerfile)
	}
	argv, err := releasecheck.ExecForm(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(argv) == 0 {
		t.Fatalf("%s: empty ENTRYPOINT", dockerfile)
	}
	return argv
}

// The Deployment runs the image as the image expects: its user, and an
// emptyDir on every VOLUME (the only places written with a read-only root).
func TestDeploymentMatchesImage(t *testing.T) {
	d, c := controllerContainer(t, baseDir)
	user, ok := instruction(t, "USER")
	if !ok {
		t.Fatalf("%s has no USER: the image would run as root", dockerfile)
	}
	uid, gid, _ := strings.Cut(strings.TrimSpace(user.Args), ":")
	psc := d.Spec.Template.Spec.SecurityContext
	if psc == nil || psc.RunAsUser == nil || strconv.FormatInt(*psc.RunAsUser, 10) != uid {
		t.Errorf("runAsUser is not the image's USER %s", uid)
	}
	if gid != "" && (psc == nil || psc.RunAsGroup == nil || strconv.FormatInt(*psc.RunAsGroup, 10) != gid) {
		t.Errorf("runAsGroup is not the image's group %s", gid)
	}

	vol, ok := instruction(t, "VOLUME")
	if !ok {
		t.Fatalf("%s declares no VOLUME for nginx's prefix", dockerfile)
	}
	paths, err := releasecheck.ExecForm(vol)
	if err != nil {
		paths = strings.Fields(vol.Args)
	}
	mounted := map[string]bool{}
	for _, m := range c.VolumeMounts {
		mounted[m.MountPath] = true
	}
	for _, p := range paths {
		if !mounted[p] {
			t.Errorf("the image's VOLUME %s is not mounted (readOnlyRootFilesystem)", p)
		}
	}
	prefix := flagValue(c.Args, "nginx-prefix")
	if prefix == "" {
		prefix = defaultNginxPrefix
	}
	if !strings.Contains(strings.Join(paths, " "), prefix) {
		t.Errorf("nginx's prefix %s is not a VOLUME of the image (%v)", prefix, paths)
	}
}
