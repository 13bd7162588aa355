#!/usr/bin/env bash
# Measures the controller on the files source (kubectl ingress controller
# --from-files) with a real nginx on loopback:
#  1. Go benchmarks (test/e2e/controller_bench_test.go):
#     - EndpointSlice file edit → first request served by the new endpoint,
#       p50/p99 over N edits applied one by one, and the reloads (target 0);
#     - a burst of 1,000 EndpointSlice edits: reloads (target 0) and syncs;
#     - a rolling update of 100 Ingresses (10 ms apart, each a new path):
#       reloads (target: a handful);
#  2. the real binary on 10,000 Ingresses from hack/genmanifests:
#     time to first config (/readyz answers 200), the controller's RSS (now
#     and peak) and nginx's, then the time to apply genmanifests'
#     "--change endpoints" (dynamic: no reload) and "--change path" (one
#     reload) pairs, from the controller's log (its "Applied" lines);
#  3. then NEW (default 100; 0 skips) new Ingresses, one after the other:
#     from the file's rename to the first answer for its host, p50/p90/p99/
#     max, the reloads (target 0), the CPU time of nginx's workers and of
#     the controller per new host (the first, which adds a backend, apart),
#     the controller's RSS and nginx's PSS.
# With PROFILE=1 the controller runs with --profiling and Go heap profiles
# are written to OUTDIR/heap-{first,changes,new}-N.pprof at the three
# points where the RSS is printed (read: go tool pprof -sample_index=inuse_space).
# Usage: [ROUTING=lua] [N=100000] [GO_BENCH=0] [NEW=100] [PROFILE=1] [QUIET=40] hack/bench-controller.sh [OUTDIR] [EDITS]
# (EDITS default 50). ROUTING (nginx or lua, default nginx) is the
# controller's --routing, also given to the Go benchmarks
# (KUBECTL_INGRESS_E2E_ROUTING). N is the Ingress count of step 2 (default
# 10000); GO_BENCH=0 skips step 1.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/bench}
edits=${2:-50}
routing=${ROUTING:-nginx}
export KUBECTL_INGRESS_E2E_ROUTING=$routing
mkdir -p "$out"
gen="$out/genmanifests"
go build -o "$gen" ./hack/genmanifests

if [ "${GO_BENCH:-1}" != 0 ]; then
	echo "== go test -bench BenchmarkFilesController (real nginx; default debounce and --sync-rate-limit)"
	go test ./test/e2e -run '^$' -bench 'BenchmarkFilesControllerEndpointEdit' -benchtime "${edits}x" | tee "$out/bench-controller.txt"
	go test ./test/e2e -run '^$' -bench 'BenchmarkFilesController(1000EndpointChanges|RollingUpdate)' -benchtime 1x | tee -a "$out/bench-controller.txt"
fi

make -s build
n=${N:-10000}
[ -d "$out/cluster-$n" ] || "$gen" --ingresses "$n" --out "$out/cluster-$n" >/dev/null
for change in endpoints path; do
	[ -d "$out/cluster-$n-$change" ] || "$gen" --ingresses "$n" --change "$change" --out "$out/cluster-$n-$change" >/dev/null
done
work=$(mktemp -d)
# the controller (and its nginx) stop with the script, also when it is
# killed or its output closed (| head)
pid=
trap 'if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; fi; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP PIPE
cp -r "$out/cluster-$n" "$work/manifests"
read -r http https status health < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(4)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
metrics() { curl -s "http://127.0.0.1:$health/metrics"; }
metric() { metrics | awk -v m="$1" '$1 == m { print $2 }'; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
# applied: the syncs that applied a change so far (the controller logs
# "Applied" at the end of each). The waits below read the controller's log,
# not /metrics: a scrape at 100,000 TLS hosts builds two certificate-expiry
# series a host (14 MB of text: 80 MB allocated, 0.24 s), and the scrapes
# of a wait every 0.1 s (Prometheus scrapes every 15-60 s) were most of what
# the controller allocated during the changes and part of its peak.
applied() { grep -c '"Applied"' "$out/controller-$n.log" || true; }
# wait_applied COUNT: until more than COUNT syncs applied (20 minutes at
# most), every 0.1 s; prints the seconds waited.
wait_applied() {
	local start
	start=$(now)
	until [ "$(applied)" -gt "$1" ]; do
		if [ "$(since "$start" | cut -d. -f1)" -ge 1200 ]; then
			echo "not within 20 minutes (errors: $(metric kubectl_ingress_reload_errors_total) reload, $(metric kubectl_ingress_dynamic_update_errors_total) dynamic)"
			return
		fi
		sleep 0.1
	done
	since "$start"
}
# heapstats WHEN: with PROFILE=1, the Go runtime's view of the controller's
# memory: the heap's live objects (HeapAlloc), the spans that hold them
# (HeapInuse), what the runtime holds besides (Sys minus HeapSys).
heapstats() {
	[ "${PROFILE:-0}" = 1 ] || return 0
	curl -sf "http://127.0.0.1:$health/debug/pprof/heap?debug=1" | awk -v when="$1" '
		/^# (HeapAlloc|HeapInuse|HeapIdle|HeapReleased|NextGC) =/ { printf "%s%s %.0f MiB", sep, $2, $4 / 1048576; sep = ", " }
		/^# Sys =/ { sys = $4 } /^# HeapSys =/ { heapsys = $4 }
		END { printf ", Sys-HeapSys %.0f MiB (Go runtime, %s)\n", (sys - heapsys) / 1048576, when }'
}

# heap NAME: with PROFILE=1, the controller's heap profile (after a GC) to
# OUTDIR/heap-NAME-N.pprof.
heap() {
	[ "${PROFILE:-0}" = 1 ] || return 0
	heapstats "before the profile"
	curl -sf -o "$out/heap-$1-$n.pprof" "http://127.0.0.1:$health/debug/pprof/heap?gc=1" && echo "heap profile: $out/heap-$1-$n.pprof"
}
profiling=()
[ "${PROFILE:-0}" = 1 ] && profiling=(--profiling)
# settle: until the controller's log has not grown for 2 s (a change of
# two files may take two syncs: the first applied is what the steps above
# wait for), so that the next step does not start while the controller
# still works.
settle() {
	local last now_size stable=0
	last=$(stat -c %s "$out/controller-$n.log")
	while [ "$stable" -lt 20 ]; do
		sleep 0.1
		now_size=$(stat -c %s "$out/controller-$n.log")
		if [ "$now_size" = "$last" ]; then stable=$((stable + 1)); else stable=0 last=$now_size; fi
	done
}
rss() { awk '/^VmRSS/ { print $2 / 1024 " MiB" }' "/proc/$1/status"; }
# cpu_ms PID...: the CPU time (user + system) the processes used so far, in ms
cpu_ms() { for p in "$@"; do cut -d')' -f2- "/proc/$p/stat"; done | awk -v hz="$(getconf CLK_TCK)" '{ t += $12 + $13 } END { printf "%.0f", t * 1000 / hz }'; }
hwm() { awk '/^VmHWM/ { print $2 / 1024 " MiB" }' "/proc/$1/status"; }

echo "== kubectl-ingress controller --from-files --routing=$routing ($n Ingresses)"
start=$(now)
bin/kubectl-ingress controller --from-files "$work/manifests" --nginx-prefix "$work/nginx" \
	--http-port "$http" --https-port "$https" --status-address "127.0.0.1:$status" \
	--health-addr "127.0.0.1:$health" --worker-processes 2 --routing "$routing" --max-manifest-size 1Gi "${profiling[@]}" 2>"$out/controller-$n.log" &
pid=$!
until curl -sf "http://127.0.0.1:$health/readyz" >/dev/null 2>&1; do
	kill -0 "$pid" 2>/dev/null || { echo "the controller exited:"; tail -20 "$out/controller-$n.log"; exit 1; }
	sleep 0.01
done
echo "time to first config: $(since "$start") s"
first_rss=$(rss "$pid")
master=$(cat "$work/nginx/nginx.pid")
# nginx_pss: master and workers, shared memory counted once (MiB)
nginx_pss() { for p in $(ps -o pid= --pid "$master" --ppid "$master"); do awk '/^Pss:/ { print $2 }' "/proc/$p/smaps_rollup"; done | awk '{ s += $1 } END { print s / 1024 }'; }
first_pss=$(nginx_pss)
echo "controller RSS: $first_rss (peak $(hwm "$pid"))"
nginx_rss=$(ps -o rss= --pid "$master" --ppid "$master" | awk '{ s += $1 } END { print s / 1024 " MiB" }')
echo "nginx RSS (master + workers): $nginx_rss; nginx.conf $(wc -c <"$work/nginx/nginx.conf") bytes"
# read as the first config serves: the controller returns the free heap
# to the system right after a whole build (pkg/controller/memory.go)
echo "controller RSS + nginx PSS when the first config serves: $(echo "$first_rss $first_pss" | awk '{ printf "%.0f MiB (%.2f GB)", $1 + $3, ($1 + $3) * 1048576 / 1e9 }')"
heap first

reloads=$(metric kubectl_ingress_reloads_total)
done_syncs=$(applied)
cp "$out/cluster-$n-endpoints/endpointslice.yaml" "$work/manifests/endpointslice.yaml"
echo "--change endpoints (every 10th EndpointSlice): applied in $(wait_applied "$done_syncs") s; reloads $(metric kubectl_ingress_reloads_total) (was $reloads)"
settle
cp "$out/cluster-$n-path/endpointslice.yaml" "$work/manifests/endpointslice.yaml"
cp "$out/cluster-$n-path/ingress.yaml" "$work/manifests/ingress.yaml"
reloads=$(metric kubectl_ingress_reloads_total)
dynamic=$(metric kubectl_ingress_dynamic_updates_total)
done_syncs=$(applied)
echo "--change path (one Ingress gains a path): applied in $(wait_applied "$done_syncs") s; reloads $reloads -> $(metric kubectl_ingress_reloads_total), dynamic updates $dynamic -> $(metric kubectl_ingress_dynamic_updates_total)"
settle
echo "controller RSS after the changes: $(rss "$pid") (peak $(hwm "$pid"))"
heap changes

# 3. A new Ingress at a time (a new host on the existing Service
# team-01/app-00001, port 80: the first also adds that backend), written
# by rename; the time from the rename to the first answer for its host
# that is not the catch-all's (status and size), polled every 10 ms.
new=${NEW:-100}
if [ "$new" -gt 0 ]; then
	catchall=$(curl -s -o /dev/null -w '%{http_code}:%{size_download}' -H 'Host: nothing.invalid' "http://127.0.0.1:$http/")
	reloads=$(metric kubectl_ingress_reloads_total)
	: >"$out/new-ingress-$n.txt"
	workers=$(ps -o pid= --ppid "$master" | tr '\n' ' ')
	cpu_workers=$(cpu_ms $workers) cpu_controller=$(cpu_ms "$pid") polls=0
	for i in $(seq 1 "$new"); do
		if [ "$i" = 2 ]; then
			cpu_workers_1=$(($(cpu_ms $workers) - cpu_workers)) cpu_controller_1=$(($(cpu_ms "$pid") - cpu_controller))
			cpu_workers=$(cpu_ms $workers) cpu_controller=$(cpu_ms "$pid") polls_1=$polls polls=0
		fi
		host="new$i.example.com"
		printf '%s\n' "apiVersion: networking.k8s.io/v1" "kind: Ingress" \
			"metadata: {name: new$i, namespace: team-01}" "spec:" "  ingressClassName: nginx" "  rules:" \
			"  - host: $host" "    http:" "      paths:" \
			"      - {path: /, pathType: Prefix, backend: {service: {name: app-00001, port: {number: 80}}}}" >"$work/new$i.tmp"
		start=$(now)
		mv "$work/new$i.tmp" "$work/manifests/new$i.yaml"
		until polls=$((polls + 1)) && [ "$(curl -s -o /dev/null -w '%{http_code}:%{size_download}' -H "Host: $host" "http://127.0.0.1:$http/")" != "$catchall" ]; do
			if [ "$(since "$start" | cut -d. -f1)" -ge 120 ]; then
				echo "$host not served within 2 minutes"
				exit 1
			fi
			sleep 0.01
		done
		since "$start" >>"$out/new-ingress-$n.txt"
		echo >>"$out/new-ingress-$n.txt"
	done
	sort -n "$out/new-ingress-$n.txt" | awk 'NF { t[++n] = $1 * 1000 } END {
		printf "new Ingress -> served (%d, one after the other): p50 %.0f ms, p90 %.0f ms, p99 %.0f ms, max %.0f ms\n",
			n, t[int(n * 0.5 + 0.5)], t[int(n * 0.9 + 0.5)], t[int(n * 0.99 + 0.5)], t[n]
	}'
	echo "reloads during the new Ingresses: $(($(metric kubectl_ingress_reloads_total) - reloads))"
	# CPU time per new host (the polling requests included: about 20 µs of
	# nginx's each); the first new Ingress also adds its backend
	if [ "$new" -gt 1 ]; then
		echo "CPU time, first new Ingress: nginx workers $cpu_workers_1 ms, controller $cpu_controller_1 ms ($polls_1 polls)"
		echo "CPU time per new Ingress after it ($((new - 1))): nginx workers $(awk -v t="$(($(cpu_ms $workers) - cpu_workers))" -v n="$((new - 1))" 'BEGIN { printf "%.1f", t / n }') ms, controller $(awk -v t="$(($(cpu_ms "$pid") - cpu_controller))" -v n="$((new - 1))" 'BEGIN { printf "%.1f", t / n }') ms ($polls polls)"
	fi
	echo "controller RSS after them: $(rss "$pid") (peak $(hwm "$pid"))"
	heap new
	# the controller returns the free heap after 10 s without a sync
	# (pkg/controller/memory.go), at most every 30 s: RSS once that passed
	sleep "${QUIET:-40}"
	quiet=$(rss "$pid")
	echo "controller RSS ${QUIET:-40} s later, no change meanwhile: $quiet"
	heapstats "once quiet"
	pss="$(nginx_pss) MiB"
	echo "nginx PSS (master + workers, shared memory counted once): $pss"
	echo "controller RSS + nginx PSS, quiet: $(echo "$quiet $pss" | awk '{ printf "%.0f MiB (%.2f GB)", $1 + $3, ($1 + $3) * 1048576 / 1e9 }')"
	for p in $(ps -o pid= --pid "$master" --ppid "$master"); do
		awk -v p="$p" -v name="$(ps -o args= --pid "$p" | cut -d' ' -f1-3)" '/^Pss:/ { pss = $2 } /^Private_Dirty:/ { dirty = $2 }
			END { printf "  %s (pid %s): PSS %.0f MiB, private dirty %.0f MiB\n", name, p, pss / 1024, dirty / 1024 }' "/proc/$p/smaps_rollup"
	done
fi
metrics | grep -E '^kubectl_ingress_sync_duration_seconds_(sum|count)' || true

kill -TERM "$pid"
wait "$pid" && echo "controller stopped (exit 0)" || echo "controller exit status $?"
pid=
