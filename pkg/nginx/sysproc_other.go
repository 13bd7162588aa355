//go:build !linux

package nginx

import (
	"io/fs"
	"syscall"
)

// sysProcAttr has nothing to add outside Linux.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// fileIDs cannot tell the owner of fi on this system.
func fileIDs(fi fs.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }
