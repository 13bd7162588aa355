package sync

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The reasons of a reload in Lua routing that no server block explains:
// the router's own server changed (nginxconf's Lua writer), because a
// route needs a location nginx cannot switch per request.

// luaRoutedInBoth are the hosts the Lua router serves in running and in
// desired.
func luaRoutedInBoth(running, desired State) map[string]bool {
	before := make(map[string]bool, len(running.Routes))
	for _, h := range running.Routes {
		before[h.Host] = true
	}
	both := map[string]bool{}
	for _, h := range desired.Routes {
		if before[h.Host] {
			both[h.Host] = true
		}
	}
	return both
}

// routerConfReasons explains the changes of the Lua router's server: a
// shape location (a named location for what nginx cannot switch per
// request: custom-http-errors, proxy buffering and tuning) added or
// removed, the router location's client_max_body_size (the largest
// proxy-body-size of the Lua-routed paths).
func routerConfReasons(running, desired State) []Reason {
	o, c := routerView(running.NGINXConf), routerView(desired.NGINXConf)
	var rs []Reason
	for _, name := range c.shapes {
		if !o.has(name) {
			rs = append(rs, Reason{Reload: true, Object: shapeOwner(desired.Routes, name),
				Message: fmt.Sprintf("Lua router: location %s added (%s; nginx cannot switch these per request)", name, shapeSettings(desired.Config, name))})
		}
	}
	for _, name := range o.shapes {
		if !c.has(name) {
			rs = append(rs, Reason{Reload: true, Object: shapeOwner(running.Routes, name),
				Message: fmt.Sprintf("Lua router: location %s removed (no route has %s any more)", name, shapeSettings(running.Config, name))})
		}
	}
	if o.found && c.found && o.bodyMax != c.bodyMax {
		rs = append(rs, Reason{Reload: true, Message: fmt.Sprintf("Lua router: client_max_body_size (the largest proxy-body-size of the Lua-routed paths) %s → %s", o.bodyMax, c.bodyMax)})
	}
	return rs
}

// routerServer is what routerConfReasons compares of the router's server.
type routerServer struct {
	found   bool
	shapes  []string // the named locations of the shapes
	bodyMax string   // the router location's, "" when it inherits
}

func (r routerServer) has(name string) bool {
	for _, n := range r.shapes {
		if n == name {
			return true
		}
	}
	return false
}

// routerView reads the router's server of a Lua writer's nginx.conf.
func routerView(conf []byte) routerServer {
	var r routerServer
	in, inRoot := false, false
	sc := bufio.NewScanner(bytes.NewReader(conf))
	sc.Buffer(make([]byte, 0, 64*1024), len(conf)+1)
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(t, "## start server _ (Lua routing"):
			in, r.found = true, true
		case !in:
		case strings.HasPrefix(t, "## end server _"):
			return r
		case t == `location "/" {`:
			inRoot = true
		case strings.HasPrefix(t, `location "@kubectl_ingress_errors_`) || strings.HasPrefix(t, `location "@kubectl_ingress_shape_`):
			inRoot = false
			r.shapes = append(r.shapes, strings.TrimSuffix(strings.TrimPrefix(t, `location "`), `" {`))
		case inRoot && strings.HasPrefix(t, "client_max_body_size "):
			r.bodyMax = strings.Trim(strings.TrimSuffix(strings.TrimPrefix(t, "client_max_body_size "), ";"), `"`)
		}
	}
	return r
}

// shapeSettings names the settings of the shape location name, read from
// a location of c that has it ("custom-http-errors 404,503",
// "proxy-buffering false", …).
func shapeSettings(c *model.Config, name string) string {
	if c != nil {
		for i := range c.Servers {
			for j := range c.Servers[i].Locations {
				if shape := model.ShapeOf(c, &c.Servers[i], &c.Servers[i].Locations[j]); shape.Location() == name {
					return strings.Join(shape.Settings(), ", ")
				}
			}
		}
	}
	return "its settings"
}

// shapeOwner names the Ingress of the first route that uses the location
// name.
func shapeOwner(routes []luaapi.HostRoutes, name string) model.ObjectRef {
	for _, h := range routes {
		if !slices.Contains(h.Shapes(), name) {
			continue
		}
		d, err := h.Decoded()
		if err != nil {
			continue // never: the JSON is the cache's own
		}
		for _, p := range d.Paths {
			if p.Settings.Shape == name && p.Ingress != "" {
				return model.ObjectRef{Kind: "Ingress", Namespace: p.Namespace, Name: p.Ingress}
			}
		}
	}
	return model.ObjectRef{}
}
