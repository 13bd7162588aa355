package nginx

import (
	"crypto/tls"
	"crypto/x509"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/lua"
)

func TestLayout(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "a", "prefix")
	in := New(prefix, Options{})
	if err := in.Layout(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".", "lua", "certs", "logs", "tmp"} {
		fi, err := os.Stat(filepath.Join(prefix, d))
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o755 {
			t.Errorf("%s: %v %v", d, fi.Mode(), err)
		}
	}
	names, err := fs.Glob(lua.Files(), "*.lua")
	if err != nil || len(names) == 0 {
		t.Fatalf("embedded Lua: %v %v", names, err)
	}
	for _, name := range names {
		want, _ := fs.ReadFile(lua.Files(), name)
		got, err := os.ReadFile(filepath.Join(prefix, "lua", name))
		if err != nil || string(got) != string(want) {
			t.Errorf("lua/%s not written: %v", name, err)
		}
		if fi, _ := os.Stat(filepath.Join(prefix, "lua", name)); fi.Mode().Perm() != 0o644 {
			t.Errorf("lua/%s: mode %v", name, fi.Mode())
		}
	}
	if os.Geteuid() == 0 {
		for p := filepath.Dir(prefix); p != filepath.Dir(p); p = filepath.Dir(p) {
			if fi, _ := os.Stat(p); fi.Mode().Perm()&0o001 == 0 {
				t.Errorf("%s not searchable by others: %v", p, fi.Mode())
			}
		}
	}

	pair, err := tls.LoadX509KeyPair(filepath.Join(prefix, "certs/default.crt"), filepath.Join(prefix, "certs/default.key"))
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if leaf.Subject.CommonName != DefaultCertificateCN || !slices.Equal(leaf.DNSNames, []string{"ingress.local"}) {
		t.Errorf("default certificate: %s %v", leaf.Subject.CommonName, leaf.DNSNames)
	}
	if fi, _ := os.Stat(filepath.Join(prefix, "certs/default.key")); fi.Mode().Perm() != 0o600 {
		t.Errorf("key mode %v", fi.Mode())
	}

	// A second Layout keeps the certificate.
	before, _ := os.ReadFile(filepath.Join(prefix, "certs/default.crt"))
	if err := in.Layout(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(prefix, "certs/default.crt"))
	if string(before) != string(after) {
		t.Error("Layout replaced an existing default certificate")
	}

	// WriteDefaultCertificate checks the pair.
	cert, key, err := SelfSignedCertificate("x", "x.example")
	if err != nil {
		t.Fatal(err)
	}
	if err := in.WriteDefaultCertificate(cert, []byte(strings.Replace(string(key), "PRIVATE KEY", "NOPE", -1))); err == nil {
		t.Error("WriteDefaultCertificate accepted a bad key")
	}
	if err := in.WriteDefaultCertificate(cert, key); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(prefix, "certs/default.crt")); string(got) != string(cert) {
		t.Error("default certificate not replaced")
	}
	if left, _ := filepath.Glob(filepath.Join(prefix, "certs", ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestChecksum(t *testing.T) {
	if got := Checksum([]byte("")); got != "d41d8cd98f00b204e9800998ecf8427e" {
		t.Errorf("md5 of empty: %s", got)
	}
}

func TestStatPPid(t *testing.T) {
	for stat, want := range map[string]int{
		"123 (nginx) S 1 123 123 0":            1,
		"124 (a (b) c) R 123 124 0":            123,
		"125 (nginx: worker process) S 77 1 1": 77,
		"garbage":                              0,
	} {
		got, ok := statPPid(stat)
		if got != want || ok != (want != 0) {
			t.Errorf("statPPid(%q) = %d %v, want %d", stat, got, ok, want)
		}
	}
	// This process is a child of its parent.
	pids, err := childPids(os.Getppid())
	if err != nil || !slices.Contains(pids, os.Getpid()) {
		t.Errorf("childPids(parent) = %v %v, want it to hold %d", pids, err, os.Getpid())
	}
	scanned, err := scanPPid(os.Getppid())
	if err != nil || !slices.Contains(scanned, os.Getpid()) {
		t.Errorf("scanPPid(parent) = %v %v", scanned, err)
	}
}

func TestTail(t *testing.T) {
	tl := newTail(4)
	tl.Write([]byte("ab"))
	mark := tl.Written()
	tl.Write([]byte("cdef"))
	if got := tl.Since(0); got != "cdef" {
		t.Errorf("Since(0) = %q", got)
	}
	if got := tl.Since(mark); got != "cdef" {
		t.Errorf("Since(mark) = %q", got)
	}
	tl.Write([]byte("g"))
	if got := tl.Since(mark); got != "defg" {
		t.Errorf("Since(mark) after more = %q", got)
	}
	if got := tl.Since(tl.Written()); got != "" {
		t.Errorf("Since(end) = %q", got)
	}
}
