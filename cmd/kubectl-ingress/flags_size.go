package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
)

// sizeValue is a pflag.Value of a size in bytes, given as a Kubernetes
// quantity: "64Mi", "1G", "1048576". It must be positive. It writes the
// size as the manifest reader's errors do (manifest.FormatSize).
type sizeValue struct{ bytes *int64 }

func (v sizeValue) String() string {
	if v.bytes == nil {
		return ""
	}
	return manifest.FormatSize(*v.bytes)
}

func (v sizeValue) Set(s string) error {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return fmt.Errorf("want a size such as 64Mi, 1G or 1048576: %w", err)
	}
	n, ok := q.AsInt64()
	if !ok || n <= 0 {
		return fmt.Errorf("want a positive whole number of bytes, got %s", s)
	}
	*v.bytes = n
	return nil
}

func (v sizeValue) Type() string { return "size" }
