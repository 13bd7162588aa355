package main

import "github.com/kubectl-ingress/kubectl-ingress/pkg/model"

// confFiles are the files nginx.conf names (model.File), under files/ as
// nginx.conf names them relative to its directory, so that `render -o DIR`
// gives a directory nginx can test. A file with a private key (the client
// certificate of proxy-ssl-secret) is not written: like servers.json,
// render never prints a private key; its place holds a note, and
// --validate tests with the real content in a throwaway prefix.
func (r *rendered) confFiles() []renderedFile {
	out := make([]renderedFile, 0, len(r.Config.Files))
	for _, f := range r.Config.Files {
		data := f.Content
		if f.Private {
			data = []byte("# " + model.FilePath(f.Name) + ": the certificate and private key of Secret " + f.Secret.String() + "; render does not write private keys\n")
			if f.Secret.Kind == "ConfigMap" { // ssl-session-ticket-key
				data = []byte("# " + model.FilePath(f.Name) + ": the TLS session ticket key of ConfigMap " + f.Secret.String() + "; render does not write private keys\n")
			}
		}
		out = append(out, renderedFile{model.FilePath(f.Name), data})
	}
	return out
}
