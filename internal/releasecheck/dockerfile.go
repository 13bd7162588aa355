// Package releasecheck reads the release files that no build here exercises
// (the Dockerfile: there is no Docker engine on the development machines or
// in CI) so that tests can hold them to what is exercised: the image's apt
// packages must be those of hack/deps.sh, which every nginx test runs on.
// It imports only the standard library.
package releasecheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Dockerfile is a parsed Dockerfile: its build stages in order.
type Dockerfile struct {
	Name   string // the file's name, for errors
	Stages []Stage
}

// Stage is one FROM and the instructions after it.
type Stage struct {
	From         string // the image, e.g. debian:bookworm-slim
	As           string // the stage name, "" when none
	Line         int
	Instructions []Instruction
}

// Instruction is one instruction with its continuation lines joined.
type Instruction struct {
	Line int    // where it starts (1-based)
	Cmd  string // upper case: RUN, USER, ENTRYPOINT …
	Args string
}

// ParseDockerfile splits a Dockerfile into stages and instructions: comment
// lines are dropped (also inside a continued instruction, as docker does),
// lines ending in a backslash are joined. Only the default escape character
// is supported.
func ParseDockerfile(name string, data []byte) (*Dockerfile, error) {
	d := &Dockerfile{Name: name}
	sc := bufio.NewScanner(bytes.NewReader(data))
	var cur strings.Builder
	start, n := 0, 0
	flush := func() error {
		text := strings.TrimSpace(cur.String())
		cur.Reset()
		if text == "" {
			return nil
		}
		cmd, args, _ := strings.Cut(text, " ")
		in := Instruction{Line: start, Cmd: strings.ToUpper(cmd), Args: strings.TrimSpace(args)}
		if in.Cmd == "FROM" {
			f := strings.Fields(in.Args)
			if len(f) == 0 {
				return fmt.Errorf("%s:%d: FROM without an image", name, start)
			}
			st := Stage{From: f[0], Line: start}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				st.As = f[2]
			}
			d.Stages = append(d.Stages, st)
			return nil
		}
		if len(d.Stages) == 0 {
			if in.Cmd == "ARG" {
				return nil
			}
			return fmt.Errorf("%s:%d: %s before the first FROM", name, start, in.Cmd)
		}
		last := &d.Stages[len(d.Stages)-1]
		last.Instructions = append(last.Instructions, in)
		return nil
	}
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || trimmed == "" {
			continue
		}
		if cur.Len() == 0 {
			start = n
		}
		if body, ok := strings.CutSuffix(strings.TrimRight(line, " \t"), `\`); ok {
			cur.WriteString(body + " ")
			continue
		}
		cur.WriteString(line)
		if err := flush(); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if cur.Len() > 0 {
		return nil, fmt.Errorf("%s:%d: the last instruction ends in a line continuation", name, start)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(d.Stages) == 0 {
		return nil, fmt.Errorf("%s: no FROM", name)
	}
	return d, nil
}

// Final is the last stage: the image that is shipped.
func (d *Dockerfile) Final() *Stage { return &d.Stages[len(d.Stages)-1] }

// Last returns the stage's last instruction of that kind, false when none.
func (s *Stage) Last(cmd string) (Instruction, bool) {
	for i := len(s.Instructions) - 1; i >= 0; i-- {
		if s.Instructions[i].Cmd == cmd {
			return s.Instructions[i], true
		}
	}
	return Instruction{}, false
}

// AptPackages returns the packages that the stage's RUN instructions
// install with apt-get install and those they remove with apt-get purge or
// remove, each sorted and without duplicates.
func (s *Stage) AptPackages() (installed, removed []string) {
	for _, in := range s.Instructions {
		if in.Cmd != "RUN" {
			continue
		}
		for _, command := range shellCommands(in.Args) {
			f := strings.Fields(command)
			i := slices.Index(f, "apt-get")
			if i < 0 || i+1 >= len(f) {
				continue
			}
			var args []string
			for _, a := range f[i+2:] {
				if !strings.HasPrefix(a, "-") {
					args = append(args, a)
				}
			}
			switch f[i+1] {
			case "install":
				installed = append(installed, args...)
			case "purge", "remove":
				removed = append(removed, args...)
			}
		}
	}
	slices.Sort(installed)
	slices.Sort(removed)
	return slices.Compact(installed), slices.Compact(removed)
}

// RuntimePackages is what stays installed: installed minus removed.
func (s *Stage) RuntimePackages() []string {
	installed, removed := s.AptPackages()
	return slices.DeleteFunc(installed, func(p string) bool { return slices.Contains(removed, p) })
}

// shellCommands splits a shell command line at &&, || and ;. Enough for
// the Dockerfile's apt-get lines, which quote nothing.
func shellCommands(line string) []string {
	return shellSeparatorRE.Split(line, -1)
}

var shellSeparatorRE = regexp.MustCompile(`&&|\|\||;`)

// ExecForm parses a JSON-array (exec form) ENTRYPOINT or CMD.
func ExecForm(in Instruction) ([]string, error) {
	var argv []string
	if err := json.Unmarshal([]byte(in.Args), &argv); err != nil {
		return nil, fmt.Errorf("line %d: %s is not in exec form (a JSON array): %w", in.Line, in.Cmd, err)
	}
	return argv, nil
}

var depsPackagesRE = regexp.MustCompile(`(?m)^packages=\(([^)]*)\)`)

// DepsPackages reads the `packages=(…)` array of hack/deps.sh, sorted.
func DepsPackages(name string, script []byte) ([]string, error) {
	m := depsPackagesRE.FindAllSubmatch(script, -1)
	if len(m) != 1 {
		return nil, fmt.Errorf("%s: want exactly one line packages=(…), found %d", name, len(m))
	}
	pkgs := strings.Fields(string(m[0][1]))
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("%s: packages=() is empty", name)
	}
	slices.Sort(pkgs)
	return pkgs, nil
}
