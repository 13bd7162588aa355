#!/usr/bin/env bash
# Measures render on clusters made by hack/genmanifests:
#  1. Go benchmarks of Build + NGINXConf + JSON at 1,000 and 10,000 Ingresses
#     (ns/op, B/op, allocs/op, nginx.conf bytes per location);
#  2. the whole `kubectl-ingress render` command on 10,000 Ingresses
#     (/usr/bin/time -v: wall time and peak RSS);
#  3. `nginx -t` of the 10,000-Ingress nginx.conf.
# Usage: hack/bench-render.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/bench}
mkdir -p "$out"
gen="$out/genmanifests"
go build -o "$gen" ./hack/genmanifests
if [ ! -x /usr/bin/time ]; then
	apt-get install -y -qq time >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
fi

echo "== go test -bench BenchmarkRender (Build + NGINXConf + backends/servers JSON)"
go test ./cmd/kubectl-ingress -run '^$' -bench BenchmarkRender -benchtime 10x -benchmem | tee "$out/bench-render.txt"

make -s build
for n in 1000 10000; do
	[ -d "$out/cluster-$n" ] || "$gen" --ingresses "$n" --out "$out/cluster-$n" >/dev/null
	echo "== kubectl-ingress render -f $out/cluster-$n (whole command, $n Ingresses)"
	/usr/bin/time -v bin/kubectl-ingress render -f "$out/cluster-$n" --output-dir "$out/render-$n" 2>"$out/time-$n.txt" || { cat "$out/time-$n.txt"; exit 1; }
	grep -E "Elapsed \(wall clock\)|Maximum resident set size" "$out/time-$n.txt"
	echo "nginx.conf: $(wc -c <"$out/render-$n/nginx.conf") bytes"
done

echo "== nginx -t on the 10,000-Ingress nginx.conf"
bin/kubectl-ingress render -f "$out/cluster-10000" --output-dir "$out/render-10000" --validate 2>&1 | tail -1
