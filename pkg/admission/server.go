package admission

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"k8s.io/klog/v2"
)

// Timeouts of the webhook server. The API server waits 10 s by default
// (timeoutSeconds) for an answer.
const (
	readTimeout     = 10 * time.Second
	writeTimeout    = 15 * time.Second
	shutdownTimeout = 5 * time.Second
	// certCheckInterval is how often, at most, a TLS handshake looks at
	// the certificate files for a new one (cert-manager rotates them in
	// place, through the kubelet's Secret volume).
	certCheckInterval = 2 * time.Second
)

// Server serves a Handler over TLS (1.2 or later) with a certificate that
// is read again from its files when they change.
type Server struct {
	ln    net.Listener
	srv   *http.Server
	certs *certFiles
}

// Listen loads the certificate and key (PEM files) and listens on addr
// (host:port; ":8443" for all addresses). Serve answers on it.
func Listen(addr, certFile, keyFile string, h http.Handler) (*Server, error) {
	certs := &certFiles{certFile: certFile, keyFile: keyFile}
	if err := certs.load(); err != nil {
		return nil, fmt.Errorf("validating webhook: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("validating webhook: %w", err)
	}
	s := &Server{ln: ln, certs: certs}
	s.srv = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		MaxHeaderBytes:    64 << 10,
		TLSConfig: &tls.Config{
			MinVersion:     tls.VersionTLS12,
			GetCertificate: certs.get,
		},
	}
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve answers until ctx ends, then lets requests in flight finish (a few
// seconds at most). Requests carry ctx's logger.
func (s *Server) Serve(ctx context.Context) error {
	log := klog.FromContext(ctx)
	s.certs.log = log
	s.srv.BaseContext = func(net.Listener) context.Context { return ctx }
	done := make(chan error, 1)
	go func() { done <- s.srv.ServeTLS(s.ln, "", "") }()
	log.Info("Serving the validating webhook", "address", s.ln.Addr().String(), "path", Path)
	select {
	case err := <-done:
		return fmt.Errorf("validating webhook: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	err := s.srv.Shutdown(sctx)
	if serveErr := <-done; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	if err != nil {
		return fmt.Errorf("validating webhook: %w", err)
	}
	return nil
}

// certFiles holds the certificate of the files, read again when their
// size or modification time changes; a pair that fails to load keeps the
// previous one serving (a rotation writes the two files one after the
// other).
type certFiles struct {
	certFile, keyFile string
	log               klog.Logger

	mu      sync.Mutex
	cert    *tls.Certificate
	stamp   [2]fileStamp
	checked time.Time
}

type fileStamp struct {
	size int64
	mod  time.Time
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{fi.Size(), fi.ModTime()}, nil
}

// load reads the pair if it changed since the last load.
func (c *certFiles) load() error {
	sc, err := stampOf(c.certFile)
	if err != nil {
		return fmt.Errorf("certificate: %w", err)
	}
	sk, err := stampOf(c.keyFile)
	if err != nil {
		return fmt.Errorf("key: %w", err)
	}
	stamp := [2]fileStamp{sc, sk}
	if c.cert != nil && stamp == c.stamp {
		return nil
	}
	pair, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		return fmt.Errorf("certificate %s and key %s: %w", c.certFile, c.keyFile, err)
	}
	c.cert, c.stamp = &pair, stamp
	return nil
}

// get is tls.Config.GetCertificate: the current pair, looked at again at
// most every certCheckInterval.
func (c *certFiles) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now := time.Now(); now.Sub(c.checked) >= certCheckInterval {
		c.checked = now
		old := c.cert
		if err := c.load(); err != nil {
			c.log.Error(err, "Reloading the validating webhook's certificate failed; the previous one is served")
		} else if c.cert != old {
			c.log.Info("Reloaded the validating webhook's certificate", "certificate", c.certFile)
		}
	}
	return c.cert, nil
}

// Close stops listening; for a Server that Serve was never called on.
func (s *Server) Close() error { return s.ln.Close() }
