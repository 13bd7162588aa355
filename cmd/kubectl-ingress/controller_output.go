package main

import (
	"io"
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
