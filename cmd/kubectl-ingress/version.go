package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Stamped at build time with -ldflags: `make build` sets version,
// goreleaser (.goreleaser.yaml) sets all three, for example
// -X main.version=v1.2.3 -X main.commit=0123abc -X main.date=2026-12-03T06:00:00Z.
var (
	version = "dev"
	commit  = "unknown"
	date    = "unknown"
)

// NewCmdVersion prints the version of the binary.
func NewCmdVersion(streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of kubectl-ingress",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return printVersion(streams.Out)
		},
	}
}

// printVersion writes the version line.
func printVersion(w io.Writer) error {
	_, err := fmt.Fprintf(w, "kubectl-ingress %s (commit %s, built %s, %s, %s/%s)\n",
		version, commit, date, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
