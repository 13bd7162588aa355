// Package e2e holds end-to-end tests that render manifests, start a real
// nginx with the project's Lua on loopback ports, push the Lua payloads and
// send real HTTP(S) requests to local backends. It has no non-test code.
package e2e
