package annotations

// Limits of nginx's configuration parser that bound user values.
//
// nginx reads its configuration through a buffer of NGX_CONF_BUFFER (4096)
// bytes, and a parameter must fit in it: with nginx 1.22.1 a quoted
// parameter of 4095 bytes (quotes included) passes nginx -t, one of 4096
// fails ("too long parameter … started"). One such value would stop every
// reload of every tenant, so render keeps every parameter well below it.
const (
	// ConfMaxParam is the longest parameter nginx reads, quotes included.
	ConfMaxParam = 4095
	// PathMaxLen bounds an Ingress path (every pathType). The writer
	// quotes a path, doubling each \ and ", after at most 5 bytes of its
	// own ("(?i)^" of a rewrite), so a path of 2000 bytes is a parameter
	// of at most 4009 bytes whatever it holds.
	PathMaxLen = 2000
	// LocationNameMaxLen is the longest name of a prefix or exact
	// location that nginx matches as written: its location tree keeps a
	// name's length in one byte, so with nginx 1.22 a 300-byte "location =
	// /e…" does not match its own path but matches a request of its first
	// 44 bytes (300 mod 256). A path that would be such a name is refused.
	LocationNameMaxLen = 255
)
