package manifest

import (
	"os"
	"time"
)

// FileStat is what the system says of a file's version without reading
// it: its size, modification and change times, inode and device. A file
// written in any way — in place, truncated, replaced by a rename, its
// times set back — gets another FileStat, as far as the system's clock
// tells writes apart: two writes of the same size within one tick of the
// file system's clock (a few milliseconds, a second or two on some file
// systems) may leave the same times. So a FileStat says a file is
// unchanged only once it was taken well after the file's last change
// (Settled).
type FileStat struct {
	Size int64
	// ModTime is the modification time in nanoseconds since the epoch.
	ModTime int64
	// ChangeTime is the inode's change time (ctime: any write, chmod,
	// rename, or a set modification time), in nanoseconds; 0 where the
	// system gives none (Windows).
	ChangeTime int64
	// Inode and Device name the file itself, so that another file renamed
	// into its place differs; 0 where the system gives none.
	Inode, Device uint64
}

// StatFile returns the FileStat of path, following symbolic links as
// ReadFile does.
func StatFile(path string) (FileStat, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return FileStat{}, err
	}
	st := FileStat{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
	systemStat(fi, &st)
	return st, nil
}

// Settled tells whether st, taken at the time at, can say later that the
// file did not change: its last change (modification and change time) is
// at least margin before at, so that a write after at falls in a later
// tick of the file system's clock and changes the times. A file changed
// within margin of the stat may be written again with the same times.
func (st FileStat) Settled(at time.Time, margin time.Duration) bool {
	last := max(st.ModTime, st.ChangeTime)
	return at.UnixNano()-last >= margin.Nanoseconds()
}
