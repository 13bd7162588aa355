//go:build !linux

package specialfiles

import "errors"

func setReadLease(uintptr) error { return errors.New("read leases are Linux's") }
