package sync

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// streamConfReasons explains the nginx.conf side of a stream change: a
// TCP/UDP service port added, removed or with other PROXY protocol flags,
// SSL passthrough turned on or off, a passthrough host added or removed.
func streamConfReasons(old, cur *model.Config) []Reason {
	var rs []Reason
	ol, cl := servicesByKey(old), servicesByKey(cur)
	for _, k := range unionKeys(ol, cl) {
		o, c := ol[k], cl[k]
		switch {
		case o == nil:
			rs = append(rs, Reason{Reload: true, Object: c.ConfigMap, Message: fmt.Sprintf("stream server %s added (service %s:%s)", k, c.Service, c.ServicePort)})
		case c == nil:
			rs = append(rs, Reason{Reload: true, Object: o.ConfigMap, Message: fmt.Sprintf("stream server %s removed", k)})
		case o.ProxyProtocolDecode != c.ProxyProtocolDecode || o.ProxyProtocolEncode != c.ProxyProtocolEncode:
			rs = append(rs, Reason{Reload: true, Object: c.ConfigMap, Message: fmt.Sprintf("PROXY protocol of stream server %s changed from %s to %s", k, proxyFlags(o), proxyFlags(c))})
		}
	}
	if old.Stream.Passthrough != cur.Stream.Passthrough {
		rs = append(rs, Reason{Reload: true, Message: "SSL passthrough turned " + onOff(cur.Stream.Passthrough)})
	}
	oh, ch := passthroughByHost(old), passthroughByHost(cur)
	for _, h := range unionKeys(oh, ch) {
		o, c := oh[h], ch[h]
		switch {
		case o == nil:
			rs = append(rs, Reason{Reload: true, Object: c.Ingress, Message: fmt.Sprintf("SSL passthrough of host %s added", h)})
		case c == nil:
			rs = append(rs, Reason{Reload: true, Object: o.Ingress, Message: fmt.Sprintf("SSL passthrough of host %s removed", h)})
		}
	}
	return rs
}

// diffStream compares the stream payloads: it tells whether the payload
// file must be rewritten and why (endpoints of a stream server or of a
// passthrough host changed; applied without a reload).
func diffStream(old, cur *model.Config) ([]Reason, bool) {
	op, cp := luaapi.StreamFromModel(old), luaapi.StreamFromModel(cur)
	push := old.Stream.Empty() != cur.Stream.Empty() ||
		!maps.EqualFunc(op.Services, cp.Services, slices.Equal) ||
		!maps.EqualFunc(op.Passthrough, cp.Passthrough, slices.Equal)
	var rs []Reason
	cs := servicesByKey(cur)
	for _, k := range sortedKeys(cp.Services) {
		if o, ok := op.Services[k]; ok && !slices.Equal(o, cp.Services[k]) {
			c := cs[k]
			rs = append(rs, Reason{Object: c.Service, Message: fmt.Sprintf("endpoints of stream server %s changed: %s", k, countChange(len(o), len(cp.Services[k])))})
		}
	}
	ch := passthroughByHost(cur)
	for _, h := range sortedKeys(cp.Passthrough) {
		if o, ok := op.Passthrough[h]; ok && !slices.Equal(o, cp.Passthrough[h]) {
			rs = append(rs, Reason{Object: ch[h].Ingress, Message: fmt.Sprintf("endpoints of SSL passthrough host %s changed: %s", h, countChange(len(o), len(cp.Passthrough[h])))})
		}
	}
	return rs, push
}

// BridgeStream returns the stream payload that both running and desired
// serve with: every desired entry plus those only running has, so that
// the workers of the old config, still draining after a reload, find an
// endpoint for their ports too.
func BridgeStream(running, desired *model.Config) luaapi.Stream {
	r, d := luaapi.StreamFromModel(running), luaapi.StreamFromModel(desired)
	for k, v := range r.Services {
		if _, ok := d.Services[k]; !ok {
			d.Services[k] = v
		}
	}
	for k, v := range r.Passthrough {
		if _, ok := d.Passthrough[k]; !ok {
			d.Passthrough[k] = v
		}
	}
	return d
}

func servicesByKey(c *model.Config) map[string]*model.StreamService {
	m := make(map[string]*model.StreamService, len(c.Stream.Services))
	for i := range c.Stream.Services {
		m[c.Stream.Services[i].Key()] = &c.Stream.Services[i]
	}
	return m
}

func passthroughByHost(c *model.Config) map[string]*model.PassthroughHost {
	m := make(map[string]*model.PassthroughHost, len(c.Stream.PassthroughHosts))
	for i := range c.Stream.PassthroughHosts {
		m[c.Stream.PassthroughHosts[i].Hostname] = &c.Stream.PassthroughHosts[i]
	}
	return m
}

func proxyFlags(s *model.StreamService) string {
	return fmt.Sprintf("decode %s, encode %s", onOff(s.ProxyProtocolDecode), onOff(s.ProxyProtocolEncode))
}

func countChange(from, to int) string {
	return fmt.Sprintf("%s → %s", plural(from, "endpoint", "endpoints"), plural(to, "endpoint", "endpoints"))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
