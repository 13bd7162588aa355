package annotations

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestOpenSSLCipherNames: the table of cipher names is what this
// machine's OpenSSL (nginx's) names, TLS 1.3's suites left out; a name
// missing would refuse a list nginx takes, one too many would let through
// a list it refuses.
func TestOpenSSLCipherNames(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("needs the openssl command (hack/deps.sh installs it)")
	}
	out, err := exec.Command("openssl", "ciphers", "ALL:COMPLEMENTOFALL:@SECLEVEL=0").Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range strings.Split(strings.TrimSpace(string(out)), ":") {
		if !strings.HasPrefix(n, "TLS_") {
			want = append(want, n)
		}
	}
	slices.Sort(want)
	var got []string
	for n := range opensslCipherNames {
		got = append(got, n)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("opensslCipherNames (%d) differ from openssl's (%d): regenerate sslciphers_names.go", len(got), len(want))
	}
	for _, n := range got {
		if !looksLikeCipherName(n) {
			t.Errorf("%s does not look like a cipher name: cipherListSelects would not judge it", n)
		}
	}
}
