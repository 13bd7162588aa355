package nginx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// childPids returns the sorted pids of the children of pid, read from
// /proc/<pid>/task/*/children, or from the ppid field of every
// /proc/<n>/stat when the kernel lacks the children files.
func childPids(pid int) ([]int, error) {
	pids, err := childrenFiles(pid)
	if errors.Is(err, fs.ErrNotExist) {
		pids, err = scanPPid(pid)
	}
	if err != nil {
		return nil, fmt.Errorf("nginx: children of %d: %w", pid, err)
	}
	slices.Sort(pids)
	return slices.Compact(pids), nil
}

func childrenFiles(pid int) ([]int, error) {
	base := filepath.Join("/proc", strconv.Itoa(pid), "task")
	tasks, err := os.ReadDir(base)
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, t := range tasks {
		data, err := os.ReadFile(filepath.Join(base, t.Name(), "children"))
		if err != nil {
			return nil, err
		}
		for _, f := range strings.Fields(string(data)) {
			n, err := strconv.Atoi(f)
			if err != nil {
				return nil, fmt.Errorf("bad pid %q in /proc: %w", f, err)
			}
			pids = append(pids, n)
		}
	}
	return pids, nil
}

func scanPPid(pid int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		if ppid, ok := statPPid(string(data)); ok && ppid == pid {
			pids = append(pids, n)
		}
	}
	return pids, nil
}

// statPPid returns the ppid field of a /proc/<pid>/stat line. The command
// name in parentheses may hold spaces and parentheses, so fields are read
// after the last ')'.
func statPPid(stat string) (int, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(stat[i+1:])
	if len(fields) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, err == nil
}
