package nginx

import "syscall"

// sysProcAttr asks the kernel to send SIGTERM (a fast shutdown) to the
// master if the process that started it dies without calling Stop, so that
// a crashed test or controller leaves no nginx behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
