package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseResolvConf(t *testing.T) {
	in := "# comment\nsearch default.svc.cluster.local svc.cluster.local\nnameserver 10.96.0.10\nnameserver fd00::a\nnameserver fe80::1%eth0\nnameserver not-an-ip\noptions ndots:5\n"
	got := parseResolvConf(strings.NewReader(in))
	if want := []string{"10.96.0.10", "fd00::a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := systemResolvers("/nonexistent/resolv.conf"); got != nil {
		t.Errorf("missing file: got %q", got)
	}
}
