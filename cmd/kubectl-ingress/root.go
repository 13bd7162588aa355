package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

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

// NewCmdRoot builds the kubectl-ingress command tree.
func NewCmdRoot(streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:           "kubectl-ingress",
		Short:         "An nginx ingress controller for Kubernetes and the tools around it",
		Long:          "kubectl ingress renders, diffs and runs nginx ingress configurations compatible with ingress-nginx.",
		SilenceUsage:  true,
		SilenceErrors: true,
		// Usage lines read "kubectl ingress …", as a kubectl plugin runs.
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl ingress"},
	}
	cmd.SetIn(streams.In)
	cmd.SetOut(streams.Out)
	cmd.SetErr(streams.ErrOut)
	cmd.AddCommand(NewCmdVersion(streams))
	cmd.AddCommand(NewCmdRender(streams))
	cmd.AddCommand(NewCmdController(streams))
	cmd.AddCommand(NewCmdDiff(streams))
	cmd.AddCommand(NewCmdBackends(streams))
	cmd.AddCommand(NewCmdCompletion(streams))
	registerCompletions(cmd, defaultClusterClients())
	return cmd
}

// run executes cmd and turns its error into an exit status: the code of an
// exitError, 1 otherwise.
func run(cmd *cobra.Command) int {
	err := cmd.Execute()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if !ee.silent {
			fmt.Fprintln(cmd.ErrOrStderr(), "error:", err)
		}
		return ee.code
	}
	fmt.Fprintln(cmd.ErrOrStderr(), "error:", err)
	return 1
}
