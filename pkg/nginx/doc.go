// Package nginx is the edge to one nginx process running under a prefix
// directory: it lays the prefix out (the embedded Lua modules, a default
// certificate), checks a config with `nginx -t`, writes nginx.conf
// atomically, starts the master as a child process, reloads it and waits
// until the new configuration really serves, and stops it.
//
// "Serves" is observed, never assumed: after Start and Reload the Instance
// polls GET <status>/configuration/checksum (see lua/CONTRACT.md) until it
// answers the md5 of the config just written, and after a reload until the
// master has forked new workers. No fixed sleeps.
//
// Files under the prefix follow lua/CONTRACT.md: nginx.conf, lua/*.lua,
// certs/default.crt|.key, logs/, tmp/, nginx.pid; every path in nginx.conf is
// relative to the prefix.
//
// Running as root: the nginx master then runs its workers as `nobody`
// (unless nginx.conf says otherwise). Workers open files under the prefix
// (temporary files under tmp/, request bodies buffered to disk), so Layout
// makes the prefix and its directories 0755 and, when the process runs as
// root, adds the search permission for others (o+x, never read) to every
// ancestor of the prefix that lacks it, such as the 0700 directories that
// t.TempDir creates. nginx.conf therefore needs no `user` directive. The
// private key of the default certificate stays 0600: only the master reads it.
//
// The package returns errors and never logs; it imports only the standard
// library and the lua package of this module (for the embedded files).
package nginx
