package manifest

import (
	"io/fs"
	"syscall"
)

// systemStat adds the change time, inode and device of fi to st.
func systemStat(fi fs.FileInfo, st *FileStat) {
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ChangeTime = s.Ctimespec.Nano()
		st.Inode, st.Device = uint64(s.Ino), uint64(s.Dev)
	}
}
