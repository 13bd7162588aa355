// Package luaapi is the Go side of the contract with the Lua modules that run
// inside nginx (see lua/CONTRACT.md): the wire types of the HTTP API on the
// status server (127.0.0.1:10246), with the field names of ingress-nginx so
// that each side works with the other; FromModel, which turns a
// model.Config into those payloads; and Client, which speaks the API given a
// base URL and an *http.Client.
//
// It imports only model and the standard library: no Kubernetes packages, no
// client-go, no render. Encoding is deterministic: maps are sorted by
// encoding/json and lists are always arrays, never null.
package luaapi
