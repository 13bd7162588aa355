package annotations

// Prefix is the prefix of every annotation render reads, as in
// ingress-nginx.
const Prefix = annotationPrefix

// AnnotationDoc describes one supported annotation, for the generated
// documentation (docs/annotations.md).
type AnnotationDoc struct {
	// Name is the annotation without Prefix.
	Name string
	// Value says what values it takes.
	Value string
	// Default is the value used when the annotation is absent; "" when
	// the setting is then off.
	Default string
	// OnInvalid says what an invalid value does.
	OnInvalid string
	// CanaryOnly annotations are read only with canary "true".
	CanaryOnly bool
	// Description is one line.
	Description string
}

// AnnotationDocs returns the supported annotations, sorted by name.
func AnnotationDocs() []AnnotationDoc {
	out := make([]AnnotationDoc, len(annotationSpecs))
	for i := range annotationSpecs {
		a := &annotationSpecs[i]
		out[i] = AnnotationDoc{Name: a.Name, Value: string(a.Kind), Default: a.Default, OnInvalid: a.onInvalid(),
			CanaryOnly: a.CanaryOnly, Description: a.Description}
	}
	return out
}

// RefusedAnnotationDoc is an ingress-nginx annotation that render knows
// and does not implement: a Problem says it is ignored, and Hint, when
// set, what to use instead.
type RefusedAnnotationDoc struct {
	Name string
	Hint string
}

// UnsupportedAnnotationDocs returns the ingress-nginx annotations (snippets
// aside) that render reports as not supported, sorted by name.
func UnsupportedAnnotationDocs() []RefusedAnnotationDoc {
	out := make([]RefusedAnnotationDoc, len(unsupportedAnnotations))
	for i, u := range unsupportedAnnotations {
		out[i] = RefusedAnnotationDoc{Name: u.Name, Hint: u.Hint}
	}
	return out
}

// SnippetAnnotationDocs returns the snippet annotations that have a hint
// of the typed annotations to use instead. Every annotation whose name
// ends in "-snippet" is refused, these and all others.
func SnippetAnnotationDocs() []RefusedAnnotationDoc {
	out := make([]RefusedAnnotationDoc, len(snippetHints))
	for i, u := range snippetHints {
		out[i] = RefusedAnnotationDoc{Name: u.Name, Hint: u.Hint}
	}
	return out
}

// SnippetReason is the reason of the Problem for a snippet annotation.
func SnippetReason(name string) string { return snippetReason(name) }

// ConfigKeyDoc describes one supported key of the controller ConfigMap.
type ConfigKeyDoc struct {
	Key         string
	Value       string
	Default     string
	Description string
}

// ConfigKeyDocs returns the supported ConfigMap keys, sorted by key.
func ConfigKeyDocs() []ConfigKeyDoc {
	out := make([]ConfigKeyDoc, len(configKeySpecs))
	for i, k := range configKeySpecs {
		out[i] = ConfigKeyDoc{Key: k.Key, Value: string(k.Kind), Default: k.Default, Description: k.Description}
	}
	return out
}
