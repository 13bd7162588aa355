// Package annotations owns the table of every supported ingress-nginx
// annotation and controller ConfigMap key: the typed parsing and validation
// of their values into model settings (ParseIngress, ParseConfigMap), the
// lists of annotations known and refused, the limits of nginx's parser that
// bound user values, and the accessors the documentation is generated from
// (AnnotationDocs, ConfigKeyDocs: internal/docgen writes docs/annotations.md
// from them).
//
// It is pure: values in (annotation maps, ConfigMap data, object refs),
// values and model.Problems out. It imports pkg/model and the standard
// library only: never render, nginxconf, the Kubernetes API types or
// client-go.
package annotations
