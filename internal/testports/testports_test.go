package testports

import (
	"net"
	"strconv"
	"testing"
)

func TestFreePortsAreDistinctListenableAndOutsideTheEphemeralRange(t *testing.T) {
	lo, hi := candidates()
	ports := Free(t, 20)
	seen := map[int]bool{}
	for _, p := range ports {
		if seen[p] {
			t.Errorf("port %d handed out twice", p)
		}
		seen[p] = true
		if p < lo || p > hi {
			t.Errorf("port %d outside %d–%d", p, lo, hi)
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Errorf("port %d: %v", p, err)
			continue
		}
		l.Close()
	}
}
