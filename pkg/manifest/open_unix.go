//go:build unix

package manifest

import (
	"os"
	"syscall"
)

// openNoWait opens path for reading without waiting: a named pipe put in
// place of a checked file opens at once (and is refused by the caller)
// instead of waiting for a writer.
func openNoWait(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
