package manifest

import (
	"errors"
	"os"
	"syscall"
)

// readLease takes a read lease on f (fcntl F_SETLEASE, F_RDLCK). The kernel
// grants it only when no one has the file open for writing: otherwise it
// returns ErrBeingWritten. While the lease is held, another process that
// opens the file for writing or truncates it waits (up to
// /proc/sys/fs/lease-break-time) until release, so what is read is one
// version of the file. Where the system grants no lease (a file of another
// user without CAP_LEASE, a file system without leases), readLease returns
// a no-op release and no error: the file is read as it is.
func readLease(f *os.File) (release func(), err error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return func() {}, nil
	}
	var leaseErr error
	if err := raw.Control(func(fd uintptr) { leaseErr = setLease(fd, syscall.F_RDLCK) }); err != nil {
		return func() {}, nil
	}
	switch {
	case leaseErr == nil:
		return func() { _ = raw.Control(func(fd uintptr) { _ = setLease(fd, syscall.F_UNLCK) }) }, nil
	case errors.Is(leaseErr, syscall.EAGAIN):
		return nil, ErrBeingWritten
	default:
		return func() {}, nil
	}
}

func setLease(fd uintptr, typ int) error {
	_, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETLEASE, uintptr(typ))
	if errno != 0 {
		return errno
	}
	return nil
}
