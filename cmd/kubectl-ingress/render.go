package main

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// NewCmdRender is a placeholder replaced by the real render command.
func NewCmdRender(streams genericiooptions.IOStreams) *cobra.Command {
	_ = render.DefaultOptions()
	return &cobra.Command{Use: "render"}
}
