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
)
