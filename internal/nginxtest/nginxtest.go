// Package nginxtest helps the tests that run a real nginx: they are
// skipped, with one message, only when nginx is not installed (CI installs
// it, so there they always run), and Tester gives them an nginx -t under a
// throwaway prefix.
//
// It is a test helper: only _test.go files and other test helpers import
// it, never product code. It imports pkg/nginx, whose own tests keep a
// helper of their own.
package nginxtest

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
)

// Require skips the test when nginx is not installed.
func Require(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("nginx"); err != nil {
		t.Skip("nginx is not installed (make deps installs nginx with its Lua module)")
	}
}

// Tester is an nginx laid out under a throwaway prefix, for nginx -t; the
// test is skipped when nginx is not installed.
func Tester(t testing.TB) *nginx.Instance {
	t.Helper()
	Require(t)
	in := nginx.New(filepath.Join(t.TempDir(), "nginx"), nginx.Options{})
	if err := in.Layout(); err != nil {
		t.Fatal(err)
	}
	return in
}
