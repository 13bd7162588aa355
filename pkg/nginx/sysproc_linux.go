package nginx

import (
	"io/fs"
	"syscall"
)

// sysProcAttr asks the kernel to send SIGTERM (a fast shutdown) to the
// master if the process that started it dies without calling Stop, so that
// a crashed test or controller leaves no nginx behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}

// fileIDs returns the owner and group of fi.
func fileIDs(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}
