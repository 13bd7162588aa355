package releasecheck

import (
	"slices"
	"strings"
	"testing"
)

func TestParseDockerfile(t *testing.T) {
	src := `ARG BASE=debian
FROM golang:1.26-bookworm AS build
RUN go build \
# a comment inside a continued instruction is dropped
      -o /out/x .

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends b a \
 && apt-get install -y tool; apt-get purge -y --auto-remove tool
user 101:101
`
	d, err := ParseDockerfile("Dockerfile", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Stages) != 2 || d.Stages[0].As != "build" || d.Stages[0].From != "golang:1.26-bookworm" || d.Final().From != "debian:bookworm-slim" {
		t.Fatalf("stages: %+v", d.Stages)
	}
	run := d.Stages[0].Instructions[0]
	if run.Line != 3 || strings.Join(strings.Fields(run.Args), " ") != "go build -o /out/x ." {
		t.Errorf("joined RUN: line %d %q", run.Line, run.Args)
	}
	installed, removed := d.Final().AptPackages()
	if !slices.Equal(installed, []string{"a", "b", "tool"}) || !slices.Equal(removed, []string{"tool"}) {
		t.Errorf("apt: installed %v, removed %v", installed, removed)
	}
	if got := d.Final().RuntimePackages(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("runtime packages %v", got)
	}
	if u, ok := d.Final().Last("USER"); !ok || u.Args != "101:101" || u.Line != 11 {
		t.Errorf("USER: %+v %v", u, ok)
	}
}

func TestParseDockerfileErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"RUN true\n", "Dockerfile:1: RUN before the first FROM"},
		{"# only a comment\n", "Dockerfile: no FROM"},
		{"FROM debian \\\n", "Dockerfile:1: the last instruction ends in a line continuation"},
	} {
		_, err := ParseDockerfile("Dockerfile", []byte(tc.src))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestExecForm(t *testing.T) {
	argv, err := ExecForm(Instruction{Line: 3, Cmd: "ENTRYPOINT", Args: `["/x", "controller"]`})
	if err != nil || !slices.Equal(argv, []string{"/x", "controller"}) {
		t.Errorf("%q %v", argv, err)
	}
	_, err = ExecForm(Instruction{Line: 3, Cmd: "ENTRYPOINT", Args: `/x controller`})
	if err == nil || !strings.HasPrefix(err.Error(), "line 3: ENTRYPOINT is not in exec form") {
		t.Errorf("shell form: %v", err)
	}
}

func TestDepsPackages(t *testing.T) {
	got, err := DepsPackages("deps.sh", []byte("set -e\npackages=(nginx  lua-cjson)\nfor p in ...\n"))
	if err != nil || !slices.Equal(got, []string{"lua-cjson", "nginx"}) {
		t.Errorf("%v %v", got, err)
	}
	for _, src := range []string{"echo\n", "packages=(a)\npackages=(b)\n", "packages=()\n"} {
		if _, err := DepsPackages("deps.sh", []byte(src)); err == nil || !strings.HasPrefix(err.Error(), "deps.sh: ") {
			t.Errorf("%q: want an error naming deps.sh, got %v", src, err)
		}
	}
}
