// Package model is the intermediate configuration between Kubernetes objects
// and nginx: servers, locations, backends, endpoints, certificates and the
// problems found while building them.
//
// It is the bottom of the import graph: it imports only the standard
// library. Route settings are typed values (never pre-rendered nginx text) so
// that the same model can be written as nginx directives or as a Lua route
// entry.
package model
