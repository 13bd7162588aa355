// Package testports hands tests loopback TCP ports that nothing listens on,
// for servers the test starts later (nginx, the controller).
//
// Asking the kernel for port 0 and closing the listener leaves a window in
// which the kernel may give the same port to any outgoing connection of the
// machine (those take their source ports from the ephemeral range): under
// load the server started later then fails with "address in use". The
// ports handed out here lie outside the ephemeral range, where the kernel
// never assigns ports on its own, and are chosen at random so that test
// processes running side by side rarely meet.
package testports

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// given are the ports handed out in this process: never handed out twice,
// so that ports asked for one by one stay distinct.
var given sync.Map

// lowest is the lowest port handed out: clear of the fixed ports the
// tests and the product use (10246, 10254, 8443 …).
const lowest = 12000

// Free returns n loopback ports on which nothing listened when it returned,
// all outside the kernel's ephemeral range and none returned before in
// this process.
func Free(t testing.TB, n int) []int {
	t.Helper()
	lo, hi := candidates()
	held := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries == 1000 {
			t.Fatalf("testports: no free loopback port in %d–%d after %d tries", lo, hi, tries)
		}
		port := lo + rand.IntN(hi-lo+1)
		if _, taken := given.LoadOrStore(port, true); taken {
			continue
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		held = append(held, l)
		ports = append(ports, port)
	}
	return ports
}

// One returns one port as Free does.
func One(t testing.TB) int {
	t.Helper()
	return Free(t, 1)[0]
}

// candidates is the widest port range outside the ephemeral one.
func candidates() (lo, hi int) {
	ephLo, ephHi := 32768, 60999
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			a, errA := strconv.Atoi(f[0])
			b, errB := strconv.Atoi(f[1])
			if errA == nil && errB == nil && a <= b {
				ephLo, ephHi = a, b
			}
		}
	}
	below, above := ephLo-1-lowest, 65535-(ephHi+1)
	if below >= above && below > 0 {
		return lowest, ephLo - 1
	}
	if above > 0 {
		return ephHi + 1, 65535
	}
	// The ephemeral range covers everything: any port will do.
	return lowest, 65535
}
