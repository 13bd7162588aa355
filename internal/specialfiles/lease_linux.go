package specialfiles

import "syscall"

func setReadLease(fd uintptr) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETLEASE, syscall.F_RDLCK); errno != 0 {
		return errno
	}
	return nil
}
