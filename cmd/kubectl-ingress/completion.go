package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

const completionLong = `Output shell completion code for kubectl ingress (bash, zsh, fish or powershell).

As a kubectl plugin ("kubectl ingress <TAB>", kubectl 1.26 or later), no shell setup is needed
beyond kubectl's own completion: put the kubectl_complete-ingress script, which comes with
kubectl-ingress, on your PATH beside it; kubectl asks it for the completions. krew installs it
beside the plugin without linking it: ln -sf "${KREW_ROOT:-$HOME/.krew}"/store/ingress/VERSION/kubectl_complete-ingress
"${KREW_ROOT:-$HOME/.krew}/bin/" (krew's caveats print the line with the VERSION).

Run as a command of its own ("kubectl-ingress <TAB>"), load the code this command prints into
your shell, as the examples show.

Flag values complete as well, from the kubeconfig's cluster as kubectl's own completion does:
namespaces for -n, --watch-namespace and --election-namespace, pods for --pod, Deployments for
--deployment, containers for --container, backend names for --backend (asked of the status
server, when it is reachable), IngressClasses for --ingress-class and their controllers for
--controller-class, namespace/name of ConfigMaps for --configmap and the TCP/UDP ConfigMaps and of
Services for --publish-service; kubeconfig contexts, clusters and users for --context, --cluster
and --user; manifest files for -f, --from and --to; and the fixed values of -o, --color and
--fail-on.`

const completionExample = `  # bash: load in the current shell (needs the bash-completion package)
  source <(kubectl-ingress completion bash)

  # bash: load in every new shell
  kubectl-ingress completion bash > ~/.local/share/bash-completion/completions/kubectl-ingress

  # zsh: load in every new shell (compinit must be enabled)
  kubectl-ingress completion zsh > "${fpath[1]}/_kubectl-ingress"

  # fish
  kubectl-ingress completion fish > ~/.config/fish/completions/kubectl-ingress.fish

  # powershell: load in the current shell
  kubectl-ingress completion powershell | Out-String | Invoke-Expression`

// NewCmdCompletion builds "kubectl ingress completion".
func NewCmdCompletion(streams genericiooptions.IOStreams) *cobra.Command {
	shells := []string{"bash", "zsh", "fish", "powershell"}
	return &cobra.Command{
		Use:                   "completion SHELL",
		Short:                 "Output shell completion code for bash, zsh, fish or powershell",
		Long:                  completionLong,
		Example:               completionExample,
		DisableFlagsInUseLine: true,
		ValidArgs:             shells,
		Args:                  cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(streams.Out, true)
			case "zsh":
				return root.GenZshCompletion(streams.Out)
			case "fish":
				return root.GenFishCompletion(streams.Out, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(streams.Out)
			}
			return fmt.Errorf("unsupported shell %q: want one of bash, zsh, fish, powershell", args[0])
		},
	}
}
