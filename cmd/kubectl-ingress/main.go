// Command kubectl-ingress is an nginx ingress controller for Kubernetes and
// the kubectl plugin around it (kubectl ingress render|diff|controller|backends).
package main

import (
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func main() {
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	os.Exit(run(NewCmdRoot(streams)))
}
