package nginx

import "sync"

// tail is an io.Writer that keeps the last size bytes written to it.
type tail struct {
	mu      sync.Mutex
	size    int
	buf     []byte
	written int64 // bytes written in all
}

func newTail(size int) *tail { return &tail{size: size} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.written += int64(len(p))
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.size; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// Written returns how many bytes were written in all.
func (t *tail) Written() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.written
}

// Since returns what is kept of the bytes written after the first n.
func (t *tail) Since(n int64) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	start := int64(len(t.buf)) - (t.written - n)
	if start < 0 {
		start = 0
	}
	if start > int64(len(t.buf)) {
		start = int64(len(t.buf))
	}
	return string(t.buf[start:])
}
