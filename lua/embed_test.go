package lua

import (
	"io/fs"
	"slices"
	"testing"
)

func TestFiles(t *testing.T) {
	names, err := fs.Glob(Files(), "*")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"balancer.lua", "balancer_round_robin.lua", "balancer_ewma.lua", "balancer_chash.lua",
		"balancer_chashsubset.lua", "balancer_sticky.lua", "canary.lua", "certificate.lua",
		"cidr.lua", "configuration.lua", "cookie.lua", "delta.lua", "general.lua", "ocsp_fetch.lua", "ocsp_stapling.lua", "ring.lua", "router.lua", "store.lua", "util.lua", "validate.lua",
	} {
		if !slices.Contains(names, want) {
			t.Errorf("%s not embedded (have %v)", want, names)
		}
	}
	if slices.Contains(names, "CONTRACT.md") {
		t.Error("CONTRACT.md is embedded")
	}
}
