// Package annotations owns the table of every supported ingress-nginx
// annotation and controller ConfigMap key: the typed parsing and validation
// of their values into model settings (ParseIngress, ParseConfigMap), the
// lists of annotations known and refused, the limits of nginx's parser that
// bound user values, and the accessors the documentation is generated from
// (AnnotationDocs, ConfigKeyDocs: internal/docgen writes docs/annotations.md
// from them).
//
// Each family of annotations is one file holding its table, its staged
// state and its part of finish (access.go, affinity.go, alias.go,
// authexternal.go, backend.go, canary.go, cors.go, proxy.go, ratelimit.go, redirect.go,
// rewrite.go, ssl.go); refused.go holds the annotations known and not
// implemented. ConfigMap keys sit next to the annotations they are the
// defaults of (proxy.go, ssl.go, backend.go) or in configmap_*.go.
// annotations_table.go and configmap.go join the family tables into the
// name-sorted tables that lookups search.
//
// It is pure: values in (annotation maps, ConfigMap data, object refs),
// values and model.Problems out. It imports pkg/model and the standard
// library only: never render, nginxconf, the Kubernetes API types or
// client-go.
package annotations
