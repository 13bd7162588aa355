package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
)

// explained is what explain says about one name: an annotation and/or a
// ConfigMap key, from the tables docs/annotations.md is generated from.
type explained struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"` // annotation, configmap key
	Supported  bool   `json:"supported"`
	Value      string `json:"value,omitempty"`
	Default    string `json:"default,omitempty"`
	OnInvalid  string `json:"onInvalid,omitempty"`
	CanaryOnly bool   `json:"canaryOnly,omitempty"`
	// Description is what it does; for one that is not supported, why
	// and what to use instead.
	Description string `json:"description"`
}

// NewCmdExplain builds "kubectl ingress explain".
func NewCmdExplain(streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "explain ANNOTATION|KEY",
		Short: "Say what an annotation or ConfigMap key takes, its default and what it does",
		Long: `Explain an nginx.ingress.kubernetes.io/* annotation (with or without the prefix) or a key of the
controller ConfigMap: the values it takes, its default, what an invalid value does, and what it
does; for an ingress-nginx annotation that is not supported (a snippet, or one not implemented),
why, and what to use instead. The same tables generate docs/annotations.md. An unknown name exits 3
with the names it is closest to.`,
		Example: `  kubectl ingress explain proxy-body-size
  kubectl ingress explain nginx.ingress.kubernetes.io/configuration-snippet
  kubectl ingress explain canary-weight -o json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "" && output != "json" && output != "yaml" {
				return &usageError{err: fmt.Errorf("--output must be json or yaml, got %q", output)}
			}
			found := explain(args[0])
			if len(found) == 0 {
				return fmt.Errorf("%q is neither an annotation nor a ConfigMap key that kubectl-ingress or ingress-nginx knows%s", args[0], closestNames(args[0]))
			}
			switch output {
			case "json":
				b, err := json.MarshalIndent(found, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(streams.Out, "%s\n", b)
				return err
			case "yaml":
				b, err := yaml.Marshal(found)
				if err != nil {
					return err
				}
				_, err = streams.Out.Write(b)
				return err
			}
			for i, e := range found {
				if i > 0 {
					fmt.Fprintln(streams.Out)
				}
				writeExplained(streams, e)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format: empty for text, json or yaml")
	cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return explainNames(), cobra.ShellCompDirectiveNoFileComp
	}
	registerFixed(cmd, "output", "json", "yaml")
	return cmd
}

func writeExplained(streams genericiooptions.IOStreams, e explained) {
	name := e.Name
	if e.Kind == "annotation" {
		name = annotations.Prefix + e.Name
	}
	status := "supported"
	if !e.Supported {
		status = "not supported"
	}
	fmt.Fprintf(streams.Out, "%s %s (%s)\n", strings.ToUpper(e.Kind), name, status)
	for _, f := range []struct{ k, v string }{{"Value", e.Value}, {"Default", e.Default}, {"Invalid", e.OnInvalid}} {
		if f.v != "" {
			fmt.Fprintf(streams.Out, "  %-8s %s\n", f.k+":", f.v)
		}
	}
	if e.CanaryOnly {
		fmt.Fprintln(streams.Out, "  Read only on an Ingress with canary: \"true\".")
	}
	fmt.Fprintf(streams.Out, "  %s\n", e.Description)
}

// explain looks name up as an annotation and as a ConfigMap key.
func explain(name string) []explained {
	bare := strings.TrimPrefix(name, annotations.Prefix)
	var out []explained
	for _, a := range annotations.AnnotationDocs() {
		if a.Name == bare {
			out = append(out, explained{Name: a.Name, Kind: "annotation", Supported: true, Value: a.Value, Default: a.Default,
				OnInvalid: a.OnInvalid, CanaryOnly: a.CanaryOnly, Description: a.Description})
		}
	}
	if len(out) == 0 {
		for _, a := range annotations.UnsupportedAnnotationDocs() {
			if a.Name == bare {
				d := "ingress-nginx's annotation, not implemented here: a Problem says it is ignored."
				if a.Hint != "" {
					d += " " + a.Hint
				}
				out = append(out, explained{Name: a.Name, Kind: "annotation", Description: d})
			}
		}
	}
	if len(out) == 0 && strings.HasSuffix(bare, "-snippet") {
		out = append(out, explained{Name: bare, Kind: "annotation", Description: annotations.SnippetReason(bare)})
	}
	if bare == name {
		for _, k := range annotations.ConfigKeyDocs() {
			if k.Key == name {
				out = append(out, explained{Name: k.Key, Kind: "configmap key", Supported: true, Value: k.Value, Default: k.Default, Description: k.Description})
			}
		}
	}
	return out
}

// explainNames are the names explain knows (completion, suggestions).
func explainNames() []string {
	var names []string
	for _, a := range annotations.AnnotationDocs() {
		names = append(names, a.Name)
	}
	for _, a := range annotations.UnsupportedAnnotationDocs() {
		names = append(names, a.Name)
	}
	for _, k := range annotations.ConfigKeyDocs() {
		names = append(names, k.Key)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// closestNames gives " (did you mean a or b?)" of the known names within
// a few edits of name, "" when none is.
func closestNames(name string) string {
	bare := strings.TrimPrefix(name, annotations.Prefix)
	best, bestD := []string(nil), 4
	for _, n := range explainNames() {
		d := levenshtein(bare, n)
		switch {
		case d < bestD:
			best, bestD = []string{n}, d
		case d == bestD && len(best) < 3:
			best = append(best, n)
		}
	}
	if len(best) == 0 {
		return ""
	}
	return " (did you mean " + strings.Join(best, " or ") + "?)"
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
