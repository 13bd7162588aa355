package luaapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// WriteRoutesUpdate writes u as the body of POST /configuration/routes:
// the bytes json.Marshal gives (nil lists as []), an entry at a time. A
// compact entry (a RoutesCache's) is its kept JSON, written as it is:
// json.Marshal would check and copy each one, then the whole body again,
// and at 100,000 hosts the body is about 90 MB, held twice while it grows.
// Written to a file (the preload, pkg/nginx), it is never held at all.
func WriteRoutesUpdate(w io.Writer, u RoutesUpdate) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.WriteString(`{"hosts":[`); err != nil {
		return err
	}
	for i := range u.Hosts {
		if i > 0 {
			_ = bw.WriteByte(',')
		}
		data, err := u.Hosts[i].MarshalJSON()
		if err != nil {
			return fmt.Errorf("encoding the routes of %s: %w", u.Hosts[i].Host, err)
		}
		if _, err := bw.Write(data); err != nil {
			return err
		}
	}
	_, _ = bw.WriteString(`],"delete":[`)
	for i, host := range u.Delete {
		if i > 0 {
			_ = bw.WriteByte(',')
		}
		data, err := json.Marshal(host)
		if err != nil {
			return err
		}
		_, _ = bw.Write(data)
	}
	_, _ = bw.WriteString(`]}`)
	return bw.Flush()
}

// OpenBody opens a payload kept in a file (a preload): its content and
// size. Every post of it (a retry too) opens it again.
type OpenBody func() (io.ReadCloser, int64, error)

// ReadAll reads the whole payload (for a Pusher that posts bodies from
// memory only).
func (o OpenBody) ReadAll() ([]byte, error) {
	r, _, err := o()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// PostBodyFrom posts the payload open gives to path, read from it as it
// is sent (not held in memory), and returns what nginx dropped, as
// PostBody.
func (c *Client) PostBodyFrom(ctx context.Context, path string, open OpenBody) ([]Dropped, error) {
	sum, err := open.contentMD5()
	if err != nil {
		return nil, fmt.Errorf("POST %s: %w", path, err)
	}
	body, size, err := open()
	if err != nil {
		return nil, fmt.Errorf("POST %s: %w", path, err)
	}
	defer body.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+path, io.NopCloser(body))
	if err != nil {
		return nil, fmt.Errorf("POST %s: %w", path, err)
	}
	req.ContentLength = size
	// a connection found closed is retried by net/http with a body read
	// anew
	req.GetBody = func() (io.ReadCloser, error) {
		r, _, err := open()
		return r, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(headerContentMD5, sum)
	answer, err := c.do(req, path, http.StatusCreated, http.StatusOK)
	return droppedIn(http.MethodPost, path, answer, err)
}
