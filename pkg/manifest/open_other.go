//go:build !unix

package manifest

import "os"

// openNoWait opens path for reading (there are no named pipes in the file
// system to wait on here).
func openNoWait(path string) (*os.File, error) {
	return os.Open(path)
}
