// Package sync decides how a desired configuration reaches a running nginx:
// Plan compares the running and the desired State and says whether nginx
// must reload (nginx.conf changed), whether only the Lua payloads change
// (backends, certificates: applied without a reload), or nothing, each with
// reasons that name the object and the field. Apply carries a plan out
// through two interfaces defined here, Reloader (the nginx process) and
// Pusher (the Lua endpoint), in the order its doc explains, retrying pushes
// a bounded number of times.
//
// It imports model and luaapi only: never client-go, render or the nginx
// process edge; applying a plan goes through interfaces defined here.
package sync
