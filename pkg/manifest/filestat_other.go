//go:build !linux && !darwin

package manifest

import "io/fs"

// systemStat adds nothing where the change time, inode and device are not
// known here (Windows and others): size and modification time must do.
func systemStat(fs.FileInfo, *FileStat) {}
