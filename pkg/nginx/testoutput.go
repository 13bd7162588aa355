package nginx

import (
	"strconv"
	"strings"
)

// ParseTestOutput reads what `nginx -t` printed for a config it rejected:
// the first error line ("nginx: [emerg] MESSAGE in FILE:LINE", also [alert]
// and [crit]) gives the message and, when nginx named a place in the
// configuration, the file and line (1-based; "" and 0 otherwise). Without
// an error line the message is the first line that is not nginx's summary
// ("configuration file … test failed").
func ParseTestOutput(output string) (message, file string, line int) {
	var fallback string
	for _, l := range strings.Split(output, "\n") {
		l = strings.TrimSpace(l)
		rest, level := cutLevel(strings.TrimPrefix(l, "nginx: "))
		switch {
		case level:
			message, file, line = cutPlace(rest)
			return message, file, line
		case fallback == "" && l != "" && !strings.HasPrefix(rest, "configuration file ") && !strings.HasPrefix(rest, "the configuration file "):
			fallback = rest
		}
	}
	return fallback, "", 0
}

// cutLevel removes an error level ("[emerg] ", "[alert] ", "[crit] ") from
// the start of s; warnings and notices do not count.
func cutLevel(s string) (string, bool) {
	for _, level := range []string{"[emerg] ", "[alert] ", "[crit] "} {
		if rest, ok := strings.CutPrefix(s, level); ok {
			return rest, true
		}
	}
	return s, false
}

// cutPlace splits "MESSAGE in FILE:LINE" (ngx_conf_log_error's suffix).
// The message may hold " in " itself (a regex quoted in it), so the last
// one counts, and only when a file and a number follow it.
func cutPlace(s string) (string, string, int) {
	i := strings.LastIndex(s, " in ")
	if i < 0 {
		return s, "", 0
	}
	place := s[i+len(" in "):]
	colon := strings.LastIndexByte(place, ':')
	if colon <= 0 {
		return s, "", 0
	}
	n, err := strconv.Atoi(place[colon+1:])
	if err != nil || n < 1 {
		return s, "", 0
	}
	return s[:i], place[:colon], n
}
