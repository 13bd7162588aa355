// Package render turns Kubernetes objects into the desired nginx
// configuration: Build makes a model.Config and the Problems found on the
// way (class filtering, host/path merge and ownership, TLS lookup,
// endpoints, quarantine); the annotations and the ConfigMap are parsed by
// pkg/annotations. pkg/nginxconf writes the nginx.conf of the result.
//
// It is pure: no clients, files, clocks, randomness or logging. It may import
// annotations, model, the Kubernetes API types and apimachinery; never
// nginxconf or client-go.
package render
