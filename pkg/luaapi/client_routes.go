package luaapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
)

// DroppedRoute is the Kind of a host entry of a routes payload that nginx
// refused (its last accepted version, if any, still serves: Kept).
const DroppedRoute = "route"

// PostRoutes sends the hosts of u that changed and the hosts to delete
// (see RoutesChanges) to nginx's Lua router, and returns the host entries
// it dropped: each is refused on its own (a bad field), the others are
// applied. A body that nginx refuses as a whole is a *StatusError (400), as
// is one larger than its shared dict (413).
func (c *Client) PostRoutes(ctx context.Context, u RoutesUpdate) ([]Dropped, error) {
	if u.Hosts == nil {
		u.Hosts = []HostRoutes{}
	}
	if u.Delete == nil {
		u.Delete = []string{}
	}
	var body bytes.Buffer
	if err := WriteRoutesUpdate(&body, u); err != nil {
		return nil, fmt.Errorf("POST %s: %w", PathRoutes, err)
	}
	return c.PostBody(ctx, PathRoutes, body.Bytes())
}

// GetRoutes returns the route entry nginx holds for host (a model
// hostname: exact, "*." wildcard or "_"); a host it does not hold is a
// *StatusError with Code 404.
func (c *Client) GetRoutes(ctx context.Context, host string) (HostRoutes, error) {
	body, err := c.get(ctx, PathRoutes, url.Values{"host": {host}})
	if err != nil {
		return HostRoutes{}, err
	}
	var h HostRoutes
	if err := json.Unmarshal(body, &h); err != nil {
		return HostRoutes{}, fmt.Errorf("GET %s: decoding the answer: %w", PathRoutes, err)
	}
	return h, nil
}
