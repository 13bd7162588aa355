package main

import (
	"io"
	"net"
	"sync"
)

// serialWriter serialises the writes of the controller's logger and of
// nginx's output copiers (two goroutines per stream) to one stream.
type serialWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *serialWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// podHasIPv6 says whether this host has an IPv6 address (the loopback's
// counts: the kernel has IPv6 on), where nginx can listen on [::], as
// ingress-nginx decides.
func podHasIPv6() bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() == nil && n.IP.To16() != nil {
			return true
		}
	}
	return false
}
