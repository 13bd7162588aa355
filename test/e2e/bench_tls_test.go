package e2e

import (
	"crypto/tls"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clientHelloBlock matches nginx.conf's ssl_client_hello_by_lua_block
// (lua/tls_session.lua), which the "without" case takes out.
var clientHelloBlock = regexp.MustCompile(`(?s)\n\s*ssl_client_hello_by_lua_block \{[^}]*\}`)

// BenchmarkTLSHandshake measures full TLS 1.3 handshakes (no session
// offered) with a host's certificate from Lua, with and without the
// session context handler of lua/tls_session.lua: its cost per
// handshake. ns/op is the client's wall time per handshake on loopback,
// nginx with one worker.
//
//	go test ./test/e2e -run '^$' -bench BenchmarkTLSHandshake -benchtime 2000x
func BenchmarkTLSHandshake(b *testing.B) {
	web := startBackend(b, "web", 0)
	shop, _ := tlsSecretYAML(b, "shop-tls", "shop.example.com")
	manifests := shop + serviceOf("web", web) + tlsIngressOf("shop", "shop.example.com", "shop-tls", "web")
	for _, tc := range []struct {
		name string
		edit func(string) string
	}{
		{"client_hello", nil},
		{"without", func(conf string) string { return clientHelloBlock.ReplaceAllString(conf, "") }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			n := startNginxWith(b, manifests, nginxOptions{editConf: tc.edit})
			if has := strings.Contains(string(n.conf), "ssl_client_hello_by_lua_block"); has != (tc.edit == nil) {
				b.Fatalf("nginx.conf has ssl_client_hello_by_lua_block: %v", has)
			}
			addr := "127.0.0.1:" + strconv.Itoa(n.httpsPort)
			cfg := &tls.Config{ServerName: "shop.example.com", InsecureSkipVerify: true,
				MinVersion: tls.VersionTLS13, MaxVersion: tls.VersionTLS13}
			d := &net.Dialer{Timeout: 5 * time.Second}
			b.ResetTimer()
			for range b.N {
				c, err := tls.DialWithDialer(d, "tcp", addr, cfg)
				if err != nil {
					b.Fatal(err)
				}
				c.Close()
			}
		})
	}
}
