// Package manifest reads Kubernetes manifest files, as `kubectl ingress
// render -f FILE|DIR|-` and the controller's --from-files source do, into a
// render.Snapshot.
//
// It owns the file side of the data flow: which files a path names (a file,
// a directory of .yaml, .yml and .json files, recursively with -R, or "-"
// for standard input), splitting multi-document YAML and JSON streams,
// expanding List kinds, strict decoding of the kinds the controller uses,
// kubectl's namespace defaulting, duplicate detection and a deterministic
// order. Other kinds are counted, not decoded. Only regular files are read
// (never a named pipe, a socket or a device, which could block or never
// end), each up to a size limit. Read does it all for a command; the files
// source of the controller uses the steps (FindFiles, StatFile, ReadFile,
// Parse, and a Combiner, which combines again only what changed) to keep
// the last good version of each file.
//
// It may import render (only for the Snapshot type), the Kubernetes API
// types, apimachinery, sigs.k8s.io/yaml and the standard library; never
// client-go.
package manifest
