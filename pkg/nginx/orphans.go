package nginx

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// leftovers returns the pids of nginx processes that run under this
// prefix: their command is nginx and their working directory is the prefix
// (Start runs the master there and the workers inherit it). When no master
// of this Instance runs, they are the workers of a master that died (a
// SIGKILL, a crash): orphans that still hold the listening sockets.
func (in *Instance) leftovers() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		dir := filepath.Join("/proc", e.Name())
		comm, err := os.ReadFile(filepath.Join(dir, "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "nginx" {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join(dir, "cwd")); err == nil && filepath.Clean(cwd) == in.prefix {
			pids = append(pids, pid)
		}
	}
	return pids
}

// endLeftovers asks the leftover processes of the prefix to quit
// gracefully (SIGQUIT: they close their listening sockets at once and
// finish the requests in flight), and kills those still there after
// killDelay. It returns how many it found.
func (in *Instance) endLeftovers() int {
	pids := in.leftovers()
	found := len(pids)
	signal(pids, syscall.SIGQUIT)
	deadline := time.Now().Add(killDelay)
	for len(pids) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		pids = alive(pids)
	}
	signal(pids, syscall.SIGKILL)
	return found
}

func signal(pids []int, sig os.Signal) {
	for _, pid := range pids {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Signal(sig)
		}
	}
}

// alive returns the pids of pids that still run (zombies excluded).
func alive(pids []int) []int {
	var out []int
	for _, pid := range pids {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			continue
		}
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 {
			if f := strings.Fields(string(stat[i+1:])); len(f) > 0 && f[0] == "Z" {
				continue
			}
		}
		out = append(out, pid)
	}
	return out
}
