// Package nginxconf writes the nginx.conf of a model.Config: NGINXConf,
// and NGINXConfWithOwners, which also records which Ingresses wrote each
// server and location block (the quarantine maps nginx -t's file:line to
// them). Every user value reaches the text through the one quoting
// function (quote.go); the output depends only on the model and
// ConfOptions, byte for byte.
//
// It is pure: no clients, files, clocks, randomness or logging. It imports
// pkg/model and the standard library only: never render, annotations, the
// Kubernetes API types or client-go. (Its tests build their input with
// render.Build.)
package nginxconf
