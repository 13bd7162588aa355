#!/usr/bin/env bash
# Measures what a POST of the whole backends array (and a PATCH of one backend) costs nginx on a large
# cluster: the controller (files source, --routing=lua, 2 workers) on
# hack/genmanifests' N Ingresses, then two POSTs of the array it serves
# (one endpoint changed, then back) while a client sends requests one after
# the other on one keep-alive connection (so to one worker): each POST's
# time, and the p50/p99/longest request meanwhile (a worker busy with a
# POST, or decoding backends, serves nothing). Also the time to first
# config and nginx's RSS before and after. Then the same change as two
# PATCHes (only the changed backend, on the whole array posted last), and
# the same figures for them.
# Usage: [N=100000] [BIN=path] hack/bench-backend-post.sh [OUTDIR]
# (BIN: another build of kubectl-ingress to measure; default bin/, built)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/bench}
n=${N:-100000}
mkdir -p "$out"
go build -o "$out/genmanifests" ./hack/genmanifests
[ -d "$out/cluster-$n" ] || "$out/genmanifests" --ingresses "$n" --out "$out/cluster-$n" >/dev/null
bin=${BIN:-}
if [ -z "$bin" ]; then
	make -s build
	bin=bin/kubectl-ingress
fi
work=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	[ -f "$work/nginx/logs/error.log" ] && cp "$work/nginx/logs/error.log" "$out/backend-post-$n.nginx-error.log"
	rm -rf "$work"
}
trap cleanup EXIT
cp -r "$out/cluster-$n" "$work/manifests"
read -r http https status health < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(4)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
nginx_rss() {
	local master
	master=$(cat "$work/nginx/nginx.pid")
	ps -o rss= --pid "$master" --ppid "$master" | awk '{ s += $1 } END { printf "%d MiB", s / 1024 }'
}
start=$(date +%s.%N)
"$bin" controller --from-files "$work/manifests" --nginx-prefix "$work/nginx" \
	--http-port "$http" --https-port "$https" --status-address "127.0.0.1:$status" \
	--health-addr "127.0.0.1:$health" --worker-processes 2 --routing lua --max-manifest-size 1Gi 2>"$out/backend-post-$n.log" &
pid=$!
until curl -sf "http://127.0.0.1:$health/readyz" >/dev/null 2>&1; do
	kill -0 "$pid" 2>/dev/null || { echo "the controller exited:"; tail -20 "$out/backend-post-$n.log"; exit 1; }
	sleep 0.05
done
echo "$n Ingresses: first config after $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s; nginx RSS $(nginx_rss)"
curl -sf "http://127.0.0.1:$status/configuration/backends" >"$work/backends.json"
python3 - "$http" "$status" "$work/backends.json" <<'PY'
import http.client, json, sys, threading, time
port, status, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
original = open(path, "rb").read()
changed = json.loads(original)
changed[0]["endpoints"][0]["address"] = "10.99.99.99"
host = changed[0]["service"]["metadata"]["name"] + "-" + changed[0]["service"]["metadata"]["namespace"] + ".example.com"
bodies = [json.dumps(changed, separators=(",", ":")).encode(), original]
import hashlib
base = hashlib.md5(original).hexdigest()
first = json.dumps(json.loads(original)[0], separators=(",", ":"))
patches = [
    ('{"base":"%s","deleted":[]}\n[%s]' % (base, json.dumps(changed[0], separators=(",", ":")))).encode(),
    ('{"base":"%s","deleted":[]}\n[%s]' % (base, first)).encode(),
]
phase = ["POST"]
latencies, done = {"POST": [], "PATCH": []}, threading.Event()
def client():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    while not done.is_set():
        t = time.monotonic()
        c.request("GET", "/", headers={"Host": host})
        c.getresponse().read()
        latencies[phase[0]].append(time.monotonic() - t)
th = threading.Thread(target=client)
th.start()
time.sleep(2)
for method, list_ in (("POST", bodies), ("PATCH", patches)):
    phase[0] = method
    for body in list_:
        c = http.client.HTTPConnection("127.0.0.1", status, timeout=300)
        t = time.monotonic()
        c.request(method, "/configuration/backends", body=body)
        r = c.getresponse()
        answer = r.read()
        print(f"{method} of {len(body) / 1e6:.3f} MB of backends: {r.status} in {time.monotonic() - t:.3f} s {answer[:200]!r}")
        time.sleep(4)
done.set()
th.join()
for method, ls in latencies.items():
    ls = sorted(ls)
    print(f"{method}s: {len(ls)} requests meanwhile: p50 {ls[len(ls) // 2] * 1000:.1f} ms, p99 {ls[int(len(ls) * .99)] * 1000:.1f} ms, longest {ls[-1] * 1000:.0f} ms")
PY
echo "nginx RSS after: $(nginx_rss)"
