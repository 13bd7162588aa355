// Package render turns Kubernetes objects into the desired nginx
// configuration: Build makes a model.Config and the Problems found on the
// way (class filtering, host/path merge and ownership, TLS lookup,
// endpoints, quarantine); the annotations and the ConfigMap are parsed by
// pkg/annotations; NGINXConf writes the nginx.conf for a model.Config.
//
// It is pure: no clients, files, clocks, randomness or logging. It may import
// annotations, model, the Kubernetes API types and apimachinery, never
// client-go.
package render
