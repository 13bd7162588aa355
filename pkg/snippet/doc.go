// Package snippet owns the translation of the configuration-snippet and
// server-snippet annotations into typed settings (model.Snippet): an
// nginx-faithful tokenizer (Tokenize), the allowlist of directives with
// each one's argument grammar (Directives, the table docs/annotations.md is
// generated from), and Translate, which maps a snippet through the
// allowlist or refuses it whole, each Refusal naming the line, the
// directive, why, and what to use instead. No byte of a snippet's text
// reaches nginx.conf: the writer writes the model's values through its one
// quoting function.
//
// It is pure and imports pkg/model and pkg/annotations (whose validators
// it reuses, so that a value in a snippet obeys the grammar of the same
// value in an annotation) and the standard library only: never render,
// nginxconf, the Kubernetes API types or client-go.
package snippet
