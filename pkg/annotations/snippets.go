package annotations

import (
	"errors"
	"fmt"
	"strings"
)

// configuration-snippet and server-snippet: ParseIngress keeps their text
// as written (leading lines included, so that line numbers match what the
// user wrote) and render has pkg/snippet translate it into typed settings
// through an allowlist of directives, or makes it a Problem. The other
// snippet annotations (auth-snippet, stream-snippet, modsecurity-snippet)
// and the ConfigMap's *-snippet keys stay refused (refused.go,
// configmap.go). The ConfigMap's allow-snippet-annotations: "false" turns
// the translation off.

// snippetAnnotations are the annotations of this family, sorted by name.
var snippetAnnotations = []annotationSpec{
	{Name: "configuration-snippet", Kind: kindSnippet, Description: "nginx directives for each location of the Ingress, translated into typed settings through the allowlist of the Snippets section below (no text reaches nginx.conf); a snippet with any directive outside the allowlist applies none of its lines and is a Problem naming the line. Off with the ConfigMap's allow-snippet-annotations: \"false\".",
		OnInvalid: "the snippet is not applied",
		set:       annSnippet(func(s *annotationState) *string { return &s.out.ConfigurationSnippet })},
	{Name: "server-snippet", Kind: kindSnippet, Description: "nginx directives for the server of each host of the Ingress, and locations nested in it, translated through the same allowlist; it applies from the oldest Ingress of a host that has one (a younger one's is a Problem). Off with the ConfigMap's allow-snippet-annotations: \"false\".",
		OnInvalid: "the snippet is not applied",
		set:       annSnippet(func(s *annotationState) *string { return &s.out.ServerSnippet })},
}

// maxSnippetLen bounds the text of a snippet annotation (pkg/snippet
// refuses longer text too).
const maxSnippetLen = 64 << 10

// annSnippet stores the text of a snippet as written; it must hold more
// than spaces and at most maxSnippetLen bytes. Its directives are checked
// by pkg/snippet in render.
func annSnippet(field func(*annotationState) *string) func(*annotationState, string) error {
	return func(s *annotationState, v string) error {
		switch {
		case strings.TrimSpace(v) == "":
			return errors.New("is empty")
		case len(v) > maxSnippetLen:
			return fmt.Errorf("must be at most %d bytes", maxSnippetLen)
		}
		*field(s) = v
		return nil
	}
}

// kindSnippet is the kind of the snippet annotations.
const kindSnippet valueKind = "nginx directives of the snippet allowlist"

// isTranslatedSnippet says whether name is a snippet annotation that
// render translates.
func isTranslatedSnippet(name string) bool {
	return name == "configuration-snippet" || name == "server-snippet"
}

// SnippetDisabledReason is the Problem's reason for a snippet annotation
// when the ConfigMap's allow-snippet-annotations is "false".
func SnippetDisabledReason() string {
	return `snippet annotations are not supported with the ConfigMap's allow-snippet-annotations: "false"; the annotation is ignored`
}
