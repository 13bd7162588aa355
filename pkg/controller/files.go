package controller

import (
	"context"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	ksync "github.com/kubectl-ingress/kubectl-ingress/pkg/sync"
)

// NginxFiles is the ksync.FileWriter of an nginx prefix: the files of
// model.Config.Files under $prefix/files/ (see pkg/nginx/conffiles.go for
// their modes and owners).
type NginxFiles struct{ In *nginx.Instance }

var _ ksync.FileWriter = NginxFiles{}

// WriteFiles writes files under the prefix.
func (f NginxFiles) WriteFiles(ctx context.Context, files []model.File) error {
	return f.In.WriteFiles(ctx, ToNginxFiles(files))
}

// PruneFiles removes the files under the prefix that keep does not name.
func (f NginxFiles) PruneFiles(ctx context.Context, keep []model.File) error {
	names := make([]string, 0, len(keep))
	for _, k := range keep {
		names = append(names, k.Name)
	}
	return f.In.PruneFiles(ctx, names)
}

// ToNginxFiles gives the files of the model as pkg/nginx writes them: the
// workers read those that nginx does not read at load, and may read
// every one without a private key (the Lua router reads a host's CA
// bundle at the TLS handshake: lua/client_auth.lua).
func ToNginxFiles(files []model.File) []nginx.File {
	out := make([]nginx.File, 0, len(files))
	for _, f := range files {
		out = append(out, nginx.File{Name: f.Name, Data: f.Content, WorkerReads: !f.ReadAtLoad || !f.Private})
	}
	return out
}
