package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// diff explains stream changes: an endpoint of a TCP service is dynamic
// only, a new port is a reload, each with its reason.
func TestDiffStream(t *testing.T) {
	base := `apiVersion: v1
kind: Service
metadata: {name: db, namespace: data}
spec:
  ports: [{name: pg, port: 5432}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: db-1, namespace: data, labels: {kubernetes.io/service-name: db}}
addressType: IPv4
ports: [{name: pg, port: 5432}]
endpoints: [{addresses: [%s]}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: tcp-services, namespace: ingress-nginx}
data: {%s}
`
	write := func(addrs, data string) string {
		dir := t.TempDir()
		content := strings.Replace(strings.Replace(base, "%s", addrs, 1), "%s", data, 1)
		if err := os.WriteFile(filepath.Join(dir, "all.yaml"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	old := write(`"10.0.0.1"`, `"5432": "data/db:pg"`)
	for _, tc := range []struct {
		name, to, verdict, reason string
	}{
		{"endpoints", write(`"10.0.0.1", "10.0.0.2"`, `"5432": "data/db:pg"`), "dynamic only", "service data/db: endpoints of stream server tcp/5432 changed: 1 endpoint → 2 endpoints"},
		{"new port", write(`"10.0.0.1"`, `"5432": "data/db:pg", "6432": "data/db:pg"`), "reload required", "configmap ingress-nginx/tcp-services: stream server tcp/6432 added (service data/db:pg)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, text, errOut := runCmd(t, "", "diff", "--from", old, "--to", tc.to, "--color", "never", "--tcp-services-configmap", "ingress-nginx/tcp-services")
			if !strings.Contains(text, "Verdict: "+tc.verdict) || !strings.Contains(text, tc.reason) {
				t.Errorf("diff says:\n%s\n%s\nwant verdict %q and reason %q", text, errOut, tc.verdict, tc.reason)
			}
		})
	}
}
