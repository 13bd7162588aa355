package luaapi

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// The endpoints of the status server, relative to the client's base URL.
const (
	PathBackends = "/configuration/backends"
	PathServers  = "/configuration/servers"
	PathCerts    = "/configuration/certs"
	// PathNginxConf answers the nginx.conf the workers loaded (ours; not
	// in ingress-nginx).
	PathNginxConf = "/configuration/nginx.conf"
	PathGeneral   = "/configuration/general"
	PathChecksum  = "/configuration/checksum"
)

// maxErrorBody bounds how much of an error answer is kept in a StatusError.
const maxErrorBody = 64 << 10

// Client speaks the Lua HTTP API of one nginx (ours or ingress-nginx's).
type Client struct {
	baseURL string
	hc      *http.Client

	mu   sync.Mutex    // serializes PostEncodedBackends
	base *backendsBase // the whole array posted last; nil: post the next one whole

	// encoded is what the last EncodeBackends encoded, by backend name
	// (backends_cache.go).
	encMu   sync.Mutex
	encoded map[string]*encodedBackend
}

// DefaultTimeout bounds every call of a Client made with a nil
// *http.Client. A POST of 10,000 backends is live in well under a second;
// nginx answers the rest at once.
const DefaultTimeout = 10 * time.Second

// NewClient returns a Client for the status server at baseURL (for example
// "http://127.0.0.1:10246"). A nil hc means an http.Client with
// DefaultTimeout; contexts bound calls further.
func NewClient(baseURL string, hc *http.Client) *Client {
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout}
	}
	return &Client{baseURL: strings.TrimRight(baseURL, "/"), hc: hc}
}

// CloseIdleConnections closes the connections the Client keeps open to
// nginx between calls, including one dialled for a call that another
// connection served: nginx's graceful stop waits for a connection that
// never sent a request (until client_header_timeout), so the controller
// closes them before it stops nginx.
func (c *Client) CloseIdleConnections() { c.hc.CloseIdleConnections() }

// StatusError is an answer of nginx with an unexpected status code. Callers
// find it with errors.As.
type StatusError struct {
	// Code is the HTTP status code.
	Code int
	// Body is nginx's answer (at most 64 KiB of it), which says why.
	Body string
}

// IsStatus reports whether err is (or wraps) a *StatusError with code:
// http.StatusBadRequest for a payload nginx refused as a whole, and
// http.StatusRequestEntityTooLarge for one larger than its shared dict.
// The old configuration still serves after either.
func IsStatus(err error, code int) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Code == code
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("status %d %s", e.Code, http.StatusText(e.Code))
	if body := strings.TrimSpace(e.Body); body != "" {
		msg += ": " + body
	}
	return msg
}

// GetBackends returns the backends nginx is using.
func (c *Client) GetBackends(ctx context.Context) ([]Backend, error) {
	body, err := c.get(ctx, PathBackends, nil)
	if err != nil {
		return nil, err
	}
	var backends []Backend
	if err := json.Unmarshal(body, &backends); err != nil {
		return nil, fmt.Errorf("GET %s: decoding the answer: %w", PathBackends, err)
	}
	if backends == nil {
		backends = []Backend{}
	}
	return backends, nil
}

// PostBackends replaces the backends of nginx. A backend that nginx drops
// (see PostBackendsReport) is no error: the others are applied.
func (c *Client) PostBackends(ctx context.Context, backends []Backend) error {
	_, err := c.PostBackendsReport(ctx, backends)
	return err
}

// PostBackendsReport replaces the backends of nginx and returns the
// backends that nginx dropped while it applied the others: each names the
// bad field and says whether nginx kept the last version it had accepted.
// A body that nginx refuses as a whole is a *StatusError (400), as is one
// larger than its shared dict (413).
func (c *Client) PostBackendsReport(ctx context.Context, backends []Backend) ([]Dropped, error) {
	e, err := c.EncodeBackends(backends)
	if err != nil {
		return nil, fmt.Errorf("POST %s: %w", PathBackends, err)
	}
	return c.PostEncodedBackends(ctx, e)
}

// PostServers replaces the host to certificate map and the certificates.
// Hosts and certificates that nginx drops (see PostServersReport) are no
// error: the others are applied.
func (c *Client) PostServers(ctx context.Context, s Servers) error {
	_, err := c.PostServersReport(ctx, s)
	return err
}

// PostServersReport replaces the host to certificate map and the
// certificates, and returns the hosts and certificates that nginx dropped
// (a certificate whose PEM does not parse, a host whose certificate is not
// served …) while it applied the others.
func (c *Client) PostServersReport(ctx context.Context, s Servers) ([]Dropped, error) {
	return c.postReport(ctx, PathServers, s)
}

// PostBody posts body, a payload already encoded, to path (PathBackends,
// PathServers or PathRoutes) and returns the entries nginx dropped, as the
// Post…Report methods do. The controller posts so, right after a start,
// the bodies it wrote for nginx's preload: a payload of 100,000 backends
// is not encoded twice, and nginx answers a body it applied last from
// memory (lua/CONTRACT.md).
func (c *Client) PostBody(ctx context.Context, path string, body []byte) ([]Dropped, error) {
	answer, err := c.post(ctx, path, body)
	return droppedIn(http.MethodPost, path, answer, err)
}

// droppedIn returns the entries nginx dropped, read from its answer to
// method on path (err: the request's, returned as it is).
func droppedIn(method, path string, answer []byte, err error) ([]Dropped, error) {
	if err != nil {
		return nil, err
	}
	dropped, err := parseDropped(answer)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return dropped, nil
}

// GetCertificate returns the PEM that nginx serves for hostname. When only
// the default certificate would be served, the error is a *StatusError with
// Code 404.
func (c *Client) GetCertificate(ctx context.Context, hostname string) (string, error) {
	body, err := c.get(ctx, PathCerts, url.Values{"hostname": {hostname}})
	if err != nil {
		return "", err
	}
	return string(body), nil
}

// GetGeneral returns the general settings object as nginx holds it.
func (c *Client) GetGeneral(ctx context.Context) (json.RawMessage, error) {
	body, err := c.get(ctx, PathGeneral, nil)
	if err != nil {
		return nil, err
	}
	if !json.Valid(body) {
		return nil, fmt.Errorf("GET %s: the answer is not JSON", PathGeneral)
	}
	return json.RawMessage(body), nil
}

// PostGeneral replaces the general settings object; general must be a JSON
// object.
func (c *Client) PostGeneral(ctx context.Context, general json.RawMessage) error {
	trimmed := bytes.TrimSpace(general)
	if len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed) {
		return fmt.Errorf("POST %s: the general settings must be a JSON object", PathGeneral)
	}
	_, err := c.post(ctx, PathGeneral, trimmed)
	return err
}

// GetChecksum returns the md5 (hex) of the nginx.conf that the running
// workers loaded.
func (c *Client) GetChecksum(ctx context.Context) (string, error) {
	body, err := c.get(ctx, PathChecksum, nil)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(body)), nil
}

func (c *Client) get(ctx context.Context, path string, query url.Values) ([]byte, error) {
	target := c.baseURL + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	return c.do(req, path, http.StatusOK)
}

func (c *Client) postReport(ctx context.Context, path string, v any) ([]Dropped, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("POST %s: encoding: %w", path, err)
	}
	return c.PostBody(ctx, path, body)
}

func (c *Client) post(ctx context.Context, path string, body []byte) ([]byte, error) {
	return c.send(ctx, http.MethodPost, path, body)
}

// send sends body with method (POST, PATCH) and returns the answer.
func (c *Client) send(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	return c.sendSummed(ctx, method, path, body, md5.Sum(body))
}

// sendSummed is send of a body whose md5 the caller has (a whole backends
// array, whose md5 is also the base a PATCH names).
func (c *Client) sendSummed(ctx context.Context, method, path string, body []byte, sum [md5.Size]byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(headerContentMD5, contentMD5Of(sum[:]))
	return c.do(req, path, http.StatusCreated, http.StatusOK)
}

// do sends req and returns the body of an answer whose status is one of
// want; any other status is a *StatusError. Errors name the method and path.
func (c *Client) do(req *http.Request, path string, want ...int) ([]byte, error) {
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", req.Method, path, err)
	}
	defer resp.Body.Close()
	for _, code := range want {
		if resp.StatusCode == code {
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				return nil, fmt.Errorf("%s %s: reading the answer: %w", req.Method, path, err)
			}
			return body, nil
		}
	}
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_, _ = io.CopyN(io.Discard, resp.Body, 1<<20) // let the connection be reused
	statusErr := &StatusError{Code: resp.StatusCode, Body: string(body)}
	if readErr != nil {
		return nil, fmt.Errorf("%s %s: %w", req.Method, path, errors.Join(statusErr, readErr))
	}
	return nil, fmt.Errorf("%s %s: %w", req.Method, path, statusErr)
}
