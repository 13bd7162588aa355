// Package trace is the written specification of routing: given the model
// (*model.Config) and one request (method, scheme, host, the target as
// sent, headers, cookies, client address), Route says which server entry
// nginx picks (exact name, single-label wildcard, alias, www redirect or
// the catch-all default server), which Ingress path and nginx location
// serve the request and how it matched, the settings applied in the order
// nginx applies them (server rewrite phase, location rewrite phase, the
// Lua balancer's rewrite, preaccess, access, content), the canary decision
// of lua/canary.lua, and the outcome: proxied to a backend (its Service,
// endpoints, upstream URI and Host) or a status with its Location.
//
// It mirrors what the classic writer (pkg/nginxconf) makes nginx do:
// nginx's host validation and server_name lookup, its URI normalisation
// (percent-decoding, merge_slashes, dot segments), its location search
// ("=" first, the longest prefix, an automatic 301 to "/p/", regexes in
// file order) and its phases. The differential test in test/e2e holds it
// to a real nginx.
//
// It is pure: values in, values out, no I/O; it imports only pkg/model
// and the standard library (never client-go, render or the writers).
package trace
