#!/usr/bin/env bash
# Measures the Lua data plane with a real nginx on loopback (2 workers):
#  1. BenchmarkLuaBalancers: requests/s (wrk, 1 thread, 32 connections) and
#     nginx CPU µs per request through the Lua balancer for round_robin,
#     ewma, chash and sticky, against the same rendered nginx.conf with a
#     static `upstream` block of the same 3 endpoints and no Lua at all
#     ("static"; "static+log_by_lua" is the same server in the Lua config,
#     which pays the http-level log_by_lua). The endpoints are a separate
#     plain nginx with one worker. Each target is measured once per round,
#     in turn; medians of the rounds are reported.
#     The targets also hold "lua_phases_alone": the same server with an
#     empty rewrite_by_lua and a balancer_by_lua that only sets the next
#     endpoint, the least that any Lua router and balancer cost.
#  1b. BenchmarkLuaBalancersInstructions (when valgrind is installed): the
#     same targets in instructions nginx executes per request (callgrind),
#     a figure the load of the machine does not move.
#  2. BenchmarkPost10kBackends: a POST /configuration/backends of 10,000
#     backends (5.2 MB) until 8 new connections in a row are served from
#     the new backends: encode (Go), POST (validated and stored), live
#     (both workers decoded it), with the nginx workers' CPU per phase.
# The machine may be shared: the load average is printed before and after;
# CPU per request and CPU per phase are the figures that contention moves
# least.
# Usage: hack/bench-lua.sh [OUTDIR]
# Env: BENCH_WRK_SECONDS (default 5), BENCH_ROUNDS (default 3),
#      BENCH_IR_REQUESTS (default 2000), BENCH_TARGETS
#      (names of targets to measure besides static, comma-separated),
#      BENCH_WRK_CONNECTIONS (default 32), BENCH_POST_TIMES (default 6).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/bench}
mkdir -p "$out"
command -v nginx >/dev/null || { echo "nginx is not installed (make deps)" >&2; exit 1; }
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }

echo "== load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo "== BenchmarkLuaBalancers (${BENCH_WRK_SECONDS:-5}s x ${BENCH_ROUNDS:-3} rounds per target)"
BENCH_WRK_SECONDS=${BENCH_WRK_SECONDS:-5} BENCH_ROUNDS=${BENCH_ROUNDS:-3} \
	go test ./test/e2e/ -run '^$' -bench 'BenchmarkLuaBalancers$' -benchtime 1x -timeout 20m -v 2>&1 |
	grep -E 'median|^Benchmark|^ok|FAIL|wrk' | tee "$out/bench-lua-balancers.txt"
if command -v valgrind >/dev/null; then
	echo "== BenchmarkLuaBalancersInstructions (${BENCH_IR_REQUESTS:-2000} requests per target)"
	go test ./test/e2e/ -run '^$' -bench 'BenchmarkLuaBalancersInstructions$' -benchtime 1x -timeout 20m -v 2>&1 |
		grep -E 'instructions/req \(|^ok|FAIL' | tee "$out/bench-lua-instructions.txt"
else
	echo "== BenchmarkLuaBalancersInstructions skipped: valgrind is not installed (apt-get install valgrind)"
fi
echo "== BenchmarkPost10kBackends (${BENCH_POST_TIMES:-6} POSTs)"
go test ./test/e2e/ -run '^$' -bench 'BenchmarkPost10kBackends$' -benchtime "${BENCH_POST_TIMES:-6}x" -timeout 10m 2>&1 |
	grep -E '^Benchmark|^ok|FAIL' | tee "$out/bench-lua-post10k.txt"
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
