package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Exit statuses, one table for every subcommand. 1, 2 and 4 are verdicts;
// every error exits exitFailure, which no verdict uses, so that a CI job
// cannot read a typo as a verdict.
const (
	exitOK = 0
	// exitDynamic: diff, the change applies through Lua.
	exitDynamic = 1
	// exitVerdict: diff, a reload is required; render
	// --fail-on-problems, problems found; backends --all-pods, the pods
	// disagree.
	exitVerdict = 2
	// exitFailure: bad flags, stray arguments, invalid flag values,
	// unreadable or empty input, nginx -t refused the config, no access to
	// the cluster or the controller pod.
	exitFailure = 3
	// exitProblems: diff --fail-on=problems, the change introduces
	// problems.
	exitProblems = 4
)

// exitStatusHelp is the table of exit statuses in --help (README has the
// same table; a test keeps them equal).
const exitStatusHelp = `Exit status (every subcommand):
  0  success; diff: no change
  1  diff: dynamic only (applied through Lua, no reload)
  2  diff: reload required; render --fail-on-problems and lint: problems found;
     backends --all-pods: the pods disagree
  3  an error: bad flags, stray arguments, invalid flag values, unreadable or empty
     input, nginx -t refused the configuration, no access to the cluster
  4  diff --fail-on=problems: the change introduces problems`

// exitError carries a specific exit status out of a command.
type exitError struct {
	code int
	err  error
	// silent is set when the output already said everything (diff's
	// verdict): nothing more is printed.
	silent bool
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError is a mistake on the command line: its message is followed by
// where the usage is.
type usageError struct {
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// NewCmdRoot builds the kubectl-ingress command tree.
func NewCmdRoot(streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:           "kubectl-ingress",
		Short:         "An nginx ingress controller for Kubernetes and the tools around it",
		Long:          "kubectl ingress renders, diffs and runs nginx ingress configurations compatible with ingress-nginx.\n\n" + exitStatusHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Usage lines read "kubectl ingress …", as a kubectl plugin runs.
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl ingress"},
	}
	cmd.SetIn(streams.In)
	cmd.SetOut(streams.Out)
	cmd.SetErr(streams.ErrOut)
	// Every subcommand inherits it: a flag error names the help to read.
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{err: err}
	})
	cmd.AddCommand(NewCmdVersion(streams))
	cmd.AddCommand(NewCmdRender(streams))
	cmd.AddCommand(NewCmdController(streams))
	cmd.AddCommand(NewCmdDiff(streams))
	cmd.AddCommand(NewCmdBackends(streams))
	cmd.AddCommand(NewCmdCompletion(streams))
	cmd.AddCommand(NewCmdExplain(streams))
	cmd.AddCommand(NewCmdTrace(streams))
	addPluginVerbs(cmd, streams)
	registerCompletions(cmd, defaultClusterClients())
	return cmd
}

// noArgs refuses arguments, naming the first one and where the inputs go.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return &usageError{err: fmt.Errorf("unexpected argument %q: %s takes no arguments (files go with -f)", args[0], cmd.CommandPath())}
}

// run executes cmd and turns its error into an exit status: the code of an
// exitError, exitFailure (3) for every other error.
func run(cmd *cobra.Command) int {
	c, err := cmd.ExecuteC()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) && ee.silent {
		return ee.code
	}
	fmt.Fprintln(cmd.ErrOrStderr(), "error:", err)
	var ue *usageError
	// cobra's own error for an unknown subcommand is a usage error too.
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command ") {
		if c == nil {
			c = cmd
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "See '%s --help' for usage.\n", c.CommandPath())
	}
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailure
}
