package annotations

import (
	"encoding/asn1"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
)

// testDHParam2048 was made once with `openssl dhparam 2048`.
const testDHParam2048 = `-----BEGIN DH PARAMETERS-----
MIIBCAKCAQEArq/kbnXl0LLH4vIk9FKp8Oh8BJ7aU2msCQAL7jqym9ipvv9ACnA/
3saWFndc6mBCfewz0bkJngvPnHlBcUw4oXERiv/29EIhLQKpCkQXp8vr1M7AL2sg
hHtNh1RgrbWNDUsNXRtsuZS+10yh1uSpul+qt2eIITq30K+8/hTTOEwDELxF+TvC
nC/dQt9O/VQ93yTNG7i9R8GZz6BwNzCGBiDDydwb8abaB3vAaoN+9wKEWPIoEhU+
KzIL2MwpF2XeLiPTcyYM7jQ9zMC4RNDQ5GLMQ0Ez58VzUDYC4TIsSFS9YZr7s+Pp
l9xUUy7y/GCgoZjDfR2SqbyG2sttNer8twIBAg==
-----END DH PARAMETERS-----
`

// Session ticket keys of 80 and 48 random bytes.
const (
	testTicketKey80 = "0NGgd7Rf412Jo5Ms2fU5KjsEt97lObSENY5N8ywPtPX0LVuWyFHbsOErxQ0Mp0PHXv6UmAJUzl7VAYGCi7ElDtDye8ZgFNhL108KKhlMHNg="
	testTicketKey48 = "yw01WGUKNM4MeUCS6H27izw/Nzr4UKammbwNOub/sw07ecQk4lenu+n66eEzrn+X"
)

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// dhPEM encodes a DHParameter of prime p and generator g (no primality:
// the parser checks form and size, nginx -t the rest).
func dhPEM(t *testing.T, typ string, p, g *big.Int) string {
	t.Helper()
	der, err := asn1.Marshal(struct{ P, G *big.Int }{p, g})
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

func TestParseDHParam(t *testing.T) {
	bits, err := ParseDHParam([]byte(testDHParam2048))
	if err != nil || bits != 2048 {
		t.Fatalf("openssl dhparam 2048: %d %v", bits, err)
	}
	if bits, err := ParseDHParam([]byte("\n" + testDHParam2048 + "\n\n")); err != nil || bits != 2048 {
		t.Errorf("blank space around: %d %v", bits, err)
	}
	odd := func(n int) *big.Int { // an odd number of n bits
		x := new(big.Int).Lsh(big.NewInt(1), uint(n-1))
		return x.Add(x, big.NewInt(1))
	}
	two := big.NewInt(2)
	if _, err := ParseDHParam([]byte(dhPEM(t, "DH PARAMETERS", odd(4096), two))); err != nil {
		t.Errorf("4096 bits: %v", err)
	}
	for name, tc := range map[string]struct{ pem, want string }{
		"empty":         {"", "no PEM block"},
		"not PEM":       {"dhparam.pem", "no PEM block"},
		"1024 bits":     {dhPEM(t, "DH PARAMETERS", odd(1024), two), "1024-bit prime"},
		"2047 bits":     {dhPEM(t, "DH PARAMETERS", odd(2047), two), "2047-bit prime"},
		"huge":          {dhPEM(t, "DH PARAMETERS", odd(10240), two), "10240-bit prime"},
		"even prime":    {dhPEM(t, "DH PARAMETERS", new(big.Int).Lsh(big.NewInt(1), 2048), two), "not an odd positive"},
		"generator 1":   {dhPEM(t, "DH PARAMETERS", odd(2048), big.NewInt(1)), "generator"},
		"generator p":   {dhPEM(t, "DH PARAMETERS", odd(2048), odd(2048)), "generator"},
		"X9.42":         {dhPEM(t, "X9.42 DH PARAMETERS", odd(2048), two), `not "DH PARAMETERS"`},
		"private key":   {strings.Replace(testDHParam2048, "DH PARAMETERS", "PRIVATE KEY", 2), `"PRIVATE KEY"`},
		"two blocks":    {testDHParam2048 + testDHParam2048, "more than one PEM block"},
		"trailing text": {testDHParam2048 + "ssl_dhparam /etc/passwd;\n", "more than one PEM block"},
		"not DER":       {string(pem.EncodeToMemory(&pem.Block{Type: "DH PARAMETERS", Bytes: []byte("{;}\n$x")})), "not a DER sequence"},
		"truncated":     {strings.Replace(testDHParam2048, "l9xUUy7y/GCgoZjDfR2SqbyG2sttNer8twIBAg==\n", "", 1), "not a DER sequence"},
		"bad base64":    {strings.Replace(testDHParam2048, "MIIB", "MI;B", 1), "no PEM block"},
		"text before":   {"}\nssl_dhparam /etc/passwd;\n" + testDHParam2048, ""},
	} {
		_, err := ParseDHParam([]byte(tc.pem))
		if tc.want == "" {
			// Text before the block is skipped (by pem.Decode as by
			// OpenSSL: "openssl dhparam -text" prints it): the file is
			// read as PEM, never as nginx.conf (the writer names it by a
			// path only), so it is harmless.
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tc.want)
		}
	}
}

func TestValueSessionTicketKey(t *testing.T) {
	// Line breaks are skipped, as in "openssl enc -base64" without -A.
	for _, v := range []string{testTicketKey80, testTicketKey48, " " + testTicketKey80 + "\n", testTicketKey80[:64] + "\n" + testTicketKey80[64:]} {
		key, err := ValueSessionTicketKey(v)
		if err != nil || len(key) != len(mustBase64(strings.TrimSpace(v))) {
			t.Errorf("%q: %d bytes, %v", v, len(key), err)
		}
	}
	for _, v := range []string{
		"", " ", "ingress-nginx/tickets", testTicketKey80[:60], testTicketKey80 + "AAAA",
		base64.StdEncoding.EncodeToString(make([]byte, 32)), base64.StdEncoding.EncodeToString(make([]byte, 81)),
		strings.NewReplacer("+", "-", "/", "_").Replace(testTicketKey48), // base64url
		strings.TrimRight(testTicketKey80, "="), testTicketKey80[:50] + " " + testTicketKey80[50:],
		testTicketKey48[:20] + `";}` + testTicketKey48[23:], "$ssl_session_id" + testTicketKey48[15:],
		strings.Repeat("A", 4000),
	} {
		if key, err := ValueSessionTicketKey(v); err == nil || !strings.Contains(err.Error(), "48 or 80") {
			t.Errorf("%q: %d bytes, %v", v, len(key), err)
		}
	}
}
