package nginx

import "testing"

// refused reads nginx's own level and message start only: request text
// that nginx quotes in its log never makes a reload look refused.
func TestRefusedReadsNginxsLevelOnly(t *testing.T) {
	for _, tc := range []struct {
		name   string
		logged string
		want   bool
	}{
		{"a port in use", `2026/12/03 21:09:20 [emerg] 7949#7949: bind() to 127.0.0.1:80 failed (98: Address already in use)`, true},
		{"printed at start-up", `nginx: [emerg] unknown directive "x" in /p/nginx.conf:3`, true},
		{"init_by_lua error in the log", `2026/12/03 21:09:20 [error] 7949#7949: init_by_lua error: /p/lua/x.lua:1: boom`, true},
		{"init_by_lua error printed", `nginx: [error] init_by_lua error: /p/lua/x.lua:1: boom`, true},
		{"an [emerg] among other lines", "2026/12/03 21:09:20 [notice] 7949#7949: signal process started\n2026/12/03 21:09:20 [emerg] 7949#7949: host not found in upstream", true},
		{"a request line quoting [emerg]", `2026/12/03 21:09:21 [info] 7950#7950: *12 client sent invalid method while reading client request line, client: 127.0.0.1, server: _, request: "[emerg] / HTTP/1.1"`, false},
		{"a request quoting init_by_lua error", `2026/12/03 21:09:21 [error] 7950#7950: *3 open() "/p/html/: init_by_lua error" failed (2: No such file or directory), client: 127.0.0.1, request: "GET /: init_by_lua error HTTP/1.1"`, false},
		{"a Lua log line quoting it", `2026/12/03 21:09:21 [warn] 7950#7950: *5 [lua] monitor.lua:10: nginx: [emerg] x, client: 127.0.0.1`, false},
		{"a reload's notices", "2026/12/03 21:09:20 [notice] 7949#7949: signal 1 (SIGHUP) received from 7829, reconfiguring\n2026/12/03 21:09:20 [notice] 7949#7949: reconfiguring", false},
		{"nothing", "", false},
	} {
		if got := refused(tc.logged); got != tc.want {
			t.Errorf("%s: refused = %v, want %v", tc.name, got, tc.want)
		}
	}
}
