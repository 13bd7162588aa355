// Package lua holds the Lua modules that run inside nginx (the
// configuration HTTP API, the balancer, the certificate selection) and
// embeds them so that pkg/nginx can lay them out under the nginx prefix.
// CONTRACT.md in this folder is the contract between these modules and the
// nginx.conf that pkg/nginxconf writes.
//
// It imports only the standard library and nothing of this module.
package lua

import (
	"embed"
	"io/fs"
)

//go:embed *.lua stream.js
var files embed.FS

// Files returns the embedded Lua modules, one file per module at the root
// (configuration.lua, balancer.lua, …), and the njs module of the stream
// servers (stream.js, see STREAM.md), to be written to $prefix/lua/.
func Files() fs.FS {
	return files
}
