package sync

import (
	"slices"
	"strings"
	gosync "sync"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// stateOrder remembers whether a State's Config keeps its Backends sorted
// by name and its Servers in model.HostBefore order, as render builds
// them. NewPlan walks two sorted lists in step; checking the order reads
// every name (at 100,000 backends and hosts about a tenth of a second a
// sync, one cache miss per name), so a State made by DesiredState checks
// it once, when a Plan first needs it, and a State is in a Plan twice:
// desired, then running.
type stateOrder struct {
	once              gosync.Once
	backends, servers bool
}

// ordered says whether s.Config's Backends and Servers are in order.
func (s State) ordered() (backends, servers bool) {
	if s.order == nil {
		return configOrder(s.Config)
	}
	s.order.once.Do(func() { s.order.backends, s.order.servers = configOrder(s.Config) })
	return s.order.backends, s.order.servers
}

func configOrder(c *model.Config) (backends, servers bool) {
	if c == nil {
		return true, true
	}
	backends = slices.IsSortedFunc(c.Backends, func(a, b model.Backend) int { return strings.Compare(a.Name, b.Name) })
	servers = true
	for i := 1; i < len(c.Servers) && servers; i++ {
		servers = model.HostBefore(c.Servers[i-1].Hostname, c.Servers[i].Hostname)
	}
	return backends, servers
}
