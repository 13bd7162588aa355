// Package controller runs the loop that keeps nginx equal to the objects
// it watches: a Source (the API server's informers, or manifest files)
// signals changes; handlers only enqueue one coalescing key; a rate-limited
// worker takes a Snapshot, builds the desired config with render, plans
// with sync and applies the plan (reload and/or Lua pushes). It also owns
// Ingress status, events, metrics and the health endpoints.
//
// It may import sync, render, luaapi, nginx, model and client-go; nothing
// imports it but cmd.
package controller
