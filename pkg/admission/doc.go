// Package admission is the validating admission webhook for Ingresses: it
// decodes an AdmissionReview (admission.k8s.io/v1), puts the candidate
// Ingress among the cluster's current objects, runs the pure render.Build
// on the part of the cluster that can affect the candidate, and denies the
// request with the Problems that the candidate itself has (a path another,
// older Ingress owns, a bad annotation value, a snippet that does not
// translate, and with
// Strict a backend Service that does not exist), and with those its change
// gives others by taking over what they served (an older Ingress updated
// to claim a younger one's host and path, alias or certificate).
//
// Without Strict it never runs nginx and never writes a file for a request.
// With Strict and an NginxCheck it also runs nginx -t, through a
// ConfTester its caller gives, on the config render writes for the
// candidate and its related objects (under a throwaway prefix, one test at
// a time, bounded by a timeout), and denies the candidate when nginx
// refuses a line only it wrote. Those bytes come out of our writer alone,
// whose one quoting function every user value passes: a request cannot
// inject a directive into what is tested (the lesson of ingress-nginx's
// CVE-2025-1974, whose webhook ran nginx -t on injected text).
//
// It owns the HTTP handler, the choice of the objects to build, the
// classification of Problems into denials and warnings, and the TLS server
// with a certificate reloaded from its files. It may import render, model,
// the Kubernetes API types and apimachinery; never client-go, nginx, the
// controller or cmd: its caller gives it the cluster's objects as a
// function returning a render.Snapshot.
package admission
