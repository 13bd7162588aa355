package main

import (
	"strings"
	"testing"
)

// TestDiffConfSectionsOnce: the text between two server blocks and after
// the last one are sections of their own, so a change after the servers
// (the status server's client_max_body_size when a dict is resized) is
// one hunk, and a change between two servers is not lost.
func TestDiffConfSectionsOnce(t *testing.T) {
	conf := func(between, trailer string) []byte {
		return []byte("http {\n## start server a\nserver a;\n## end server a\n" + between + "\n## start server b\nserver b;\n## end server b\n" + trailer + "\n}\n")
	}
	keys := map[string]int{}
	for _, s := range splitConf(conf("# x", "status 64m;")) {
		keys[s.key]++
	}
	for _, k := range []string{"", "server a", "~after server a", "server b", "~trailer"} {
		if keys[k] != 1 {
			t.Errorf("section %q: %d times, want once (%v)", k, keys[k], keys)
		}
	}
	d := confDiff(conf("# x", "status 64m;"), conf("# y", "status 128m;"), nil)
	for _, want := range []string{"-# x\n", "+# y\n", "-status 64m;\n", "+status 128m;\n"} {
		if strings.Count(d, want) != 1 {
			t.Errorf("the diff has %q %d times, want once:\n%s", want, strings.Count(d, want), d)
		}
	}
}
