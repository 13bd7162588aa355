package annotations

import (
	"encoding/asn1"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// The two TLS keys of the ConfigMap that become files nginx reads at load:
// ssl-dh-param (a Secret whose dhparam.pem holds Diffie-Hellman
// parameters: ssl_dhparam) and ssl-session-ticket-key (the key itself, in
// base64: ssl_session_ticket_key). The parser checks the value; render
// reads the Secret, checks its content with ParseDHParam and makes the
// files (model.File, ReadAtLoad: a new content is a new name, so nginx
// reloads).

// DHParamKey is the key of the ssl-dh-param Secret that holds the PEM.
const DHParamKey = "dhparam.pem"

// MinDHParamBits is the smallest prime nginx accepts: OpenSSL 3 at the
// security level 2 of Debian's openssl.cnf refuses a smaller group in
// SSL_CTX_set0_tmp_dh_pkey, and nginx -t fails.
const MinDHParamBits = 2048

// maxDHParamBits bounds the prime (OpenSSL refuses more than 10000 bits).
const maxDHParamBits = 10000

const kindSessionTicketKey valueKind = "base64 of 48 or 80 random bytes"

// valueDHParamRef checks "namespace/name" or "name" of the Secret of
// ssl-dh-param; a name without namespace is in the ConfigMap's namespace
// (render fills it).
func valueDHParamRef(v string) (model.ObjectRef, error) {
	return valueSecretRef(v)
}

// ValueSessionTicketKey decodes ssl-session-ticket-key: standard base64
// (as `openssl rand 80 | openssl enc -A -base64` prints it) of 48 bytes
// (AES-128 tickets) or 80 bytes (AES-256), the two sizes nginx reads.
func ValueSessionTicketKey(v string) ([]byte, error) {
	bad := errors.New(`must be the base64 of 48 or 80 random bytes (e.g. the output of "openssl rand 80 | openssl enc -A -base64")`)
	s := strings.TrimSpace(v)
	if s == "" || len(s) > 200 {
		return nil, bad
	}
	key, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, bad
	}
	if len(key) != 48 && len(key) != 80 {
		return nil, fmt.Errorf("must be the base64 of 48 or 80 random bytes, not %d bytes (e.g. the output of \"openssl rand 80 | openssl enc -A -base64\")", len(key))
	}
	return key, nil
}

// dhParams is PKCS #3 DHParameter: prime, base and an optional
// privateValueLength.
type dhParams struct {
	P, G   *big.Int
	Length int `asn1:"optional"`
}

// ParseDHParam checks the content of dhparam.pem: one "DH PARAMETERS" PEM
// block (as `openssl dhparam 2048` writes it) with an odd prime of
// MinDHParamBits to maxDHParamBits bits and a generator from 2 to p-2, and
// nothing else but blank space around it. It returns the bits of the
// prime.
func ParseDHParam(data []byte) (int, error) {
	block, rest := pem.Decode(data)
	if block == nil {
		return 0, errors.New(`holds no PEM block (must be "-----BEGIN DH PARAMETERS-----" as "openssl dhparam 2048" writes it)`)
	}
	if block.Type != "DH PARAMETERS" {
		return 0, fmt.Errorf(`holds a PEM block %q, not "DH PARAMETERS" (as "openssl dhparam 2048" writes it)`, block.Type)
	}
	if len(strings.TrimSpace(string(rest))) != 0 {
		return 0, errors.New("holds more than one PEM block")
	}
	var p dhParams
	extra, err := asn1.Unmarshal(block.Bytes, &p)
	if err != nil || len(extra) != 0 || p.P == nil || p.G == nil {
		return 0, errors.New("holds DH PARAMETERS that are not a DER sequence of a prime and a generator")
	}
	bits := p.P.BitLen()
	if p.P.Sign() <= 0 || p.P.Bit(0) == 0 {
		return 0, errors.New("holds DH PARAMETERS whose prime is not an odd positive number")
	}
	if bits < MinDHParamBits || bits > maxDHParamBits {
		return 0, fmt.Errorf("holds a %d-bit prime; nginx with OpenSSL 3 needs %d to %d bits (openssl dhparam %d)", bits, MinDHParamBits, maxDHParamBits, MinDHParamBits)
	}
	pm2 := new(big.Int).Sub(p.P, big.NewInt(2))
	if p.G.Cmp(big.NewInt(2)) < 0 || p.G.Cmp(pm2) > 0 {
		return 0, errors.New("holds DH PARAMETERS whose generator is not from 2 to p-2")
	}
	if p.Length < 0 || p.Length >= bits {
		return 0, errors.New("holds DH PARAMETERS with an invalid private value length")
	}
	return bits, nil
}
