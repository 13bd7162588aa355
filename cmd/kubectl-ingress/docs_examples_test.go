package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
)

// docExample is one "kubectl ingress …" command shown to users.
type docExample struct {
	where string // file:line, or "help of COMMAND"
	args  []string
}

// Every command the README, docs/ and the commands' own Examples show is
// one the binary accepts: its command and flags exist and its flag values
// parse. Those that need neither a cluster, a running controller nor files
// the reader makes first are run on the repository's examples/, and must
// not end with an error (exit 3). README's diff examples are compared
// with their output by TestREADMEDiffExamples.
func TestDocumentedCommandsRun(t *testing.T) {
	examples := documentedCommands(t)
	if len(examples) < 40 {
		t.Fatalf("found %d documented commands; the extraction broke?", len(examples))
	}
	root := NewCmdRoot(genericiooptions.NewTestIOStreamsDiscard())
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, ex := range examples {
		cmd, rest, err := root.Find(ex.args)
		if err != nil || cmd == root {
			t.Errorf("%s: %q: no such command (%v)", ex.where, ex.args, err)
			continue
		}
		if !cmd.DisableFlagParsing {
			fs := cmd.Flags()
			fs.SetOutput(nopWriter{})
			if err := cmd.ParseFlags(rest); err != nil {
				t.Errorf("%s: %q: %v", ex.where, ex.args, err)
				continue
			}
		}
		args, ok := runnable(t, cmd, ex.args, repo)
		// Reset the parsed flags: the next example parses afresh.
		root = NewCmdRoot(genericiooptions.NewTestIOStreamsDiscard())
		if !ok {
			continue
		}
		ran++
		t.Run(ex.where, func(t *testing.T) {
			t.Chdir(repo)
			code, _, errOut := runCmdWithin(t, "", args...)
			if code == exitFailure {
				t.Errorf("%q: exit 3: %s", args, errOut)
			}
		})
	}
	t.Logf("%d documented commands, %d run", len(examples), ran)
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

// runnable tells whether an example can run here, and with which
// arguments: offline commands whose input files are the repository's
// (an --output-dir goes to a temporary directory).
func runnable(t *testing.T, cmd *cobra.Command, args []string, repo string) ([]string, bool) {
	switch cmd.Name() {
	case "render", "diff", "lint", "ingresses", "conf", "trace", "explain", "version":
	default:
		return nil, false // the cluster, a controller pod or the simulator
	}
	f := cmd.Flags()
	inputs := slices.Concat(stringSlice(f, "filename"), stringSlice(f, "from"), stringSlice(f, "to"))
	switch cmd.Name() {
	case "diff":
		if len(stringSlice(f, "filename")) > 0 {
			return nil, false // the live cluster
		}
	case "lint", "ingresses", "conf":
		if len(stringSlice(f, "filename")) == 0 {
			return nil, false
		}
	case "render", "trace":
		if len(inputs) == 0 {
			return nil, false
		}
	}
	for _, in := range inputs {
		if _, err := os.Stat(filepath.Join(repo, in)); err != nil {
			return nil, false // a reader's own files
		}
	}
	if v, err := f.GetBool("validate"); err == nil && v {
		nginxtest.Require(t)
	}
	out := slices.Clone(args)
	for i, a := range out {
		if (a == "--output-dir" || a == "-d") && i+1 < len(out) {
			out[i+1] = t.TempDir()
		}
	}
	return out, true
}

func stringSlice(f interface {
	GetStringSlice(string) ([]string, error)
}, name string) []string {
	v, _ := f.GetStringSlice(name)
	return v
}

// documentedCommands are the commands of the fenced blocks of README.md
// and docs/*.md and of every command's Example.
func documentedCommands(t *testing.T) []docExample {
	t.Helper()
	var out []docExample
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	fence := regexp.MustCompile("(?s)```[a-z]*\n(.*?)```")
	for _, file := range append([]string{"../../README.md"}, files...) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, m := range fence.FindAllStringSubmatchIndex(text, -1) {
			line := strings.Count(text[:m[2]], "\n") + 1
			for i, cmd := range commandLines(text[m[2]:m[3]]) {
				if cmd == "" {
					continue
				}
				out = append(out, docExample{where: filepath.Base(file) + ":" + strconv.Itoa(line+i), args: cmdArgs(t, cmd)})
			}
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for i, cmd := range commandLines(c.Example) {
			if cmd != "" {
				out = append(out, docExample{where: "help of " + c.CommandPath() + " #" + strconv.Itoa(i+1), args: cmdArgs(t, cmd)})
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCmdRoot(genericiooptions.NewTestIOStreamsDiscard()))
	return out
}

// commandLines gives, for each line of block, the "kubectl ingress"
// command that starts there (continuation lines joined), else "".
func commandLines(block string) []string {
	lines := strings.Split(block, "\n")
	out := make([]string, len(lines))
	for i := 0; i < len(lines); i++ {
		t := strings.TrimPrefix(strings.TrimSpace(lines[i]), "$ ")
		if !strings.HasPrefix(t, "kubectl ingress ") {
			continue
		}
		start := i
		for strings.HasSuffix(t, `\`) && i+1 < len(lines) {
			i++
			t = strings.TrimSuffix(t, `\`) + " " + strings.TrimSpace(lines[i])
		}
		out[start] = t
	}
	return out
}

// cmdArgs splits a shell command line as sh would (quotes, backslashes),
// up to a comment, a pipe or a redirection, and drops "kubectl ingress".
func cmdArgs(t *testing.T, line string) []string {
	t.Helper()
	var args []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				t.Fatalf("unterminated quote in %q", line)
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) {
					i++
				}
				cur.WriteByte(line[i])
			}
			inWord = true
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		case (c == '#' && !inWord) || c == '|' || c == '>' || c == '<' || c == ';' || c == '&':
			i = len(line)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		args = append(args, cur.String())
	}
	if len(args) < 2 || args[0] != "kubectl" || args[1] != "ingress" {
		t.Fatalf("not a kubectl ingress command: %q", line)
	}
	return args[2:]
}
