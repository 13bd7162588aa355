// Package docgen writes the documentation that comes from the code: the
// tables of supported annotations and ConfigMap keys of docs/annotations.md
// and the short list of them in the README, from pkg/annotations' tables. Its
// test fails when the files differ from what the code produces; `go test
// ./internal/docgen -update` rewrites them.
//
// It imports pkg/annotations and pkg/snippet only (for their exported
// table accessors) and the standard library.
package docgen

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/snippet"
)

// Tables is what the documentation is generated from.
type Tables struct {
	Prefix      string
	Annotations []annotations.AnnotationDoc
	ConfigKeys  []annotations.ConfigKeyDoc
	Unsupported []annotations.RefusedAnnotationDoc
	Snippets    []annotations.RefusedAnnotationDoc
	// SnippetReason is the Problem's reason for a refused snippet
	// annotation.
	SnippetReason string
	// SnippetDirectives is the allowlist of configuration-snippet and
	// server-snippet; SnippetRefused the directives refused with a reason
	// of their own.
	SnippetDirectives []snippet.DirectiveDoc
	SnippetRefused    []snippet.RefusedDoc
}

// FromAnnotations returns the tables of pkg/annotations.
func FromAnnotations() Tables {
	return Tables{
		Prefix:        annotations.Prefix,
		Annotations:   annotations.AnnotationDocs(),
		ConfigKeys:    annotations.ConfigKeyDocs(),
		Unsupported:   annotations.UnsupportedAnnotationDocs(),
		Snippets:      annotations.SnippetAnnotationDocs(),
		SnippetReason: annotations.SnippetReason("x-snippet"),

		SnippetDirectives: snippet.Directives(),
		SnippetRefused:    snippet.RefusedDirectives(),
	}
}

// generatedBy is the line that says where a generated text comes from.
const generatedBy = "Generated from the tables of pkg/annotations by `go test ./internal/docgen -update`; " +
	"a test fails when it differs from the code. Do not edit by hand."

// cell escapes s for a Markdown table cell.
func cell(s string) string {
	if s == "" {
		return "—"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

// code writes s as inline code, or "—" when empty.
func code(s string) string {
	if s == "" {
		return "—"
	}
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

// AnnotationsMarkdown is docs/annotations.md.
func AnnotationsMarkdown(t Tables) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Annotations and ConfigMap keys\n\n")
	p("<!-- %s -->\n\n", generatedBy)
	p("kubectl-ingress reads the annotations of ingress-nginx, `%sNAME` on an Ingress, and the keys of its\n", t.Prefix)
	p("controller ConfigMap (`--configmap`). What it supports is below, with the values each takes. Every\n")
	p("other annotation with the prefix, and every other ConfigMap key, is a *Problem* naming the object and\n")
	p("the field: `kubectl ingress render` prints it, the controller makes it a Warning Event on the object,\n")
	p("the admission webhook refuses an Ingress that has it; the rest of the configuration is still built.\n\n")

	p("## Supported annotations\n\n")
	p("%d annotations. An invalid value is a Problem, and the setting behaves as the last column says. \"ConfigMap KEY\" as a\n", len(t.Annotations))
	p("default means the value of that ConfigMap key. Canary annotations are read only on an Ingress with\n")
	p("`%scanary: \"true\"`.\n\n", t.Prefix)
	p("| annotation | value | default | what it does | when the value is invalid |\n")
	p("|---|---|---|---|---|\n")
	for _, a := range t.Annotations {
		desc := a.Description
		if a.CanaryOnly {
			desc = "(canary) " + desc
		}
		p("| %s | %s | %s | %s | %s |\n", code(a.Name), cell(a.Value), code(a.Default), cell(desc), cell(a.OnInvalid))
	}

	p("\n## ConfigMap keys\n\n")
	p("%d keys. An invalid value is a Problem on the ConfigMap, and the key keeps its default.\n\n", len(t.ConfigKeys))
	p("| key | value | default | what it does |\n")
	p("|---|---|---|---|\n")
	for _, k := range t.ConfigKeys {
		p("| %s | %s | %s | %s |\n", code(k.Key), cell(k.Value), code(k.Default), cell(k.Description))
	}

	p("\n## Snippets\n\n")
	p("`configuration-snippet` and `server-snippet` are not passed to nginx as text: each directive is\n")
	p("translated, through the allowlist below, into the typed settings the other annotations make, and\n")
	p("the writer writes them with its one quoting function. A snippet with any directive outside the\n")
	p("allowlist, or with arguments its grammar refuses, applies none of its lines: every such directive is\n")
	p("a Problem naming the line, why, and what to use instead. `render` prints a notice per applied\n")
	p("snippet (\"configuration-snippet of ns/name: 3 directives translated: add_header ×3\").\n\n")
	p("- `configuration-snippet` goes to every location of the Ingress; `server-snippet` to the server of\n")
	p("  each of its hosts, from the oldest Ingress of the host that has one (a younger Ingress's is a\n")
	p("  Problem), with `location` blocks one level deep whose path must not repeat an Ingress path.\n")
	p("- Values may read nginx variables only from an allowlist: the request and connection variables\n")
	p("  (`$host`, `$remote_addr`, `$request_uri`, `$scheme`, `$http_*`, `$arg_*`, `$cookie_*` …); response\n")
	p("  headers (`$sent_http_*`, `$upstream_http_*`) only where a response exists (add_header,\n")
	p("  more_set_headers, sub_filter); `$1`…`$9` in a rewrite replacement; `$service_name`, `$namespace`\n")
	p("  and `$service_port` in a configuration-snippet's proxy_set_header. Values are visible ASCII: no\n")
	p("  control character, no newline.\n")
	p("- The ConfigMap's `allow-snippet-annotations: \"false\"` turns the translation off (every snippet a\n")
	p("  Problem). Snippets are `Critical` for `annotations-risk-level`, as in ingress-nginx: below\n")
	p("  `Critical` an Ingress with one is left out.\n\n")
	p("%d directives translate:\n\n", len(t.SnippetDirectives))
	p("| directive | grammar | where | becomes | what it does | example |\n")
	p("|---|---|---|---|---|---|\n")
	for _, d := range t.SnippetDirectives {
		p("| %s | %s | %s | %s | %s | %s |\n", code(d.Name), cell(code(d.Grammar)), cell(strings.Join(d.Where, ", ")), cell(d.Becomes), cell(d.Description), cell(code(d.Example)))
	}
	p("\nEvery other directive is refused; these with a reason or a replacement of their own:\n\n")
	p("| directive | why, and what to use instead |\n|---|---|\n")
	for _, r := range t.SnippetRefused {
		p("| %s | %s |\n", code(r.Name), cell(r.Reason))
	}

	p("\n## Refused: other snippets\n\n")
	p("Every other annotation whose name ends in `-snippet` (`auth-snippet`, `stream-snippet`,\n")
	p("`modsecurity-snippet` …) and every ConfigMap key that does (`http-snippet`, `server-snippet`,\n")
	p("`location-snippet` …) is refused. The Problem says:\n\n")
	p("> %s\n\n", strings.Replace(t.SnippetReason, "; the annotation is ignored", ". The annotation is ignored.", 1))
	p("Typed annotations that replace the usual snippets:\n\n")
	p("| snippet | instead |\n|---|---|\n")
	for _, s := range t.Snippets {
		p("| %s | %s |\n", code(s.Name), cell(strings.TrimPrefix(s.Hint, "use the typed annotations instead: ")))
	}

	p("\n## Not supported\n\n")
	p("%d ingress-nginx annotations that kubectl-ingress does not implement: each is a Problem saying it is\n", len(t.Unsupported))
	p("ignored (and the hint, where there is one). The requests are served as if it were absent.\n\n")
	p("| annotation | hint |\n|---|---|\n")
	for _, u := range t.Unsupported {
		p("| %s | %s |\n", code(u.Name), cell(u.Hint))
	}
	return b.Bytes()
}

// README markers around the generated summary.
const (
	SummaryBegin = "<!-- BEGIN generated by internal/docgen: supported annotations and ConfigMap keys -->"
	SummaryEnd   = "<!-- END generated -->"
)

// Summary is the README's short list of the supported annotations and
// ConfigMap keys, between SummaryBegin and SummaryEnd.
func Summary(t Tables) string {
	var b strings.Builder
	b.WriteString(SummaryBegin + "\n")
	names := make([]string, len(t.Annotations))
	for i, a := range t.Annotations {
		names[i] = "`" + a.Name + "`"
	}
	fmt.Fprintf(&b, "**%d annotations** (`%s…`): %s.\n\n", len(t.Annotations), t.Prefix, strings.Join(names, ", "))
	keys := make([]string, len(t.ConfigKeys))
	for i, k := range t.ConfigKeys {
		keys[i] = "`" + k.Key + "`"
	}
	fmt.Fprintf(&b, "**%d ConfigMap keys**: %s.\n", len(t.ConfigKeys), strings.Join(keys, ", "))
	b.WriteString(SummaryEnd)
	return b.String()
}

// ReplaceSummary returns readme with the text between the markers (they
// included) replaced by summary.
func ReplaceSummary(readme, summary string) (string, error) {
	i := strings.Index(readme, SummaryBegin)
	j := strings.Index(readme, SummaryEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("the README has no %q … %q block", SummaryBegin, SummaryEnd)
	}
	return readme[:i] + summary + readme[j+len(SummaryEnd):], nil
}
