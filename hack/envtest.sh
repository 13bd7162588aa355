#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy into bin/envtest/
# (KUBEBUILDER_ASSETS for controller-runtime's envtest), and links kubectl
# there when the machine has one.
#
# The sources are the tools modules hack/envtest/kube-apiserver (k8s.io/kubernetes
# v1.37.2, staging modules replaced by their v0.37.2 releases) and
# hack/envtest/etcd (go.etcd.io/etcd/server/v3 v3.6.16): two modules, because
# k8s.io/kubernetes requires etcd v3.7.0 and would raise etcd in a shared one.
#
# The binaries are reused while bin/envtest/VERSION matches the hash of the Go
# version, the build flags and the tools modules' go.mod, go.sum and main.go.
# The first build takes several minutes on 2 cores; set ENVTEST_FORCE=1 to
# rebuild anyway. internal/envtesting runs them from there.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/bin/envtest"
src="$root/hack/envtest"
go="${GO:-go}"

k8s_version=v1.37.2
apiserver_ldflags="-X k8s.io/component-base/version.gitVersion=$k8s_version"
apiserver_ldflags+=" -X k8s.io/component-base/version.gitMajor=1"
apiserver_ldflags+=" -X k8s.io/component-base/version.gitMinor=37"
apiserver_ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"
etcd_ldflags="-X go.etcd.io/etcd/api/v3/version.GitSHA=v3.6.16"

# Reproducible: the committed go.mod/go.sum decide every version (readonly
# fails rather than resolving anything new); no workspace, no cgo, no paths.
export GOWORK=off CGO_ENABLED=0
export GOFLAGS="-mod=readonly -trimpath -buildvcs=false"

mkdir -p "$out"
if command -v flock >/dev/null; then
	exec 9>"$out/.lock"
	flock 9
fi

stamp() {
	{
		"$go" env GOVERSION GOOS GOARCH
		echo "$GOFLAGS CGO_ENABLED=$CGO_ENABLED"
		echo "$apiserver_ldflags"
		echo "$etcd_ldflags"
		cd "$src"
		cat kube-apiserver/go.mod kube-apiserver/go.sum kube-apiserver/main.go
		cat etcd/go.mod etcd/go.sum etcd/main.go
	} | sha256sum | cut -d' ' -f1
}

want="$(stamp)"
have="$(cat "$out/VERSION" 2>/dev/null || true)"

if [[ "${ENVTEST_FORCE:-}" != 1 && "$want" == "$have" && -x "$out/kube-apiserver" && -x "$out/etcd" ]]; then
	echo "envtest: reusing kube-apiserver $k8s_version and etcd in $out"
else
	rm -f "$out/VERSION"
	echo "envtest: building etcd (about 1 min on 2 cores)"
	(cd "$src/etcd" && "$go" build -ldflags "$etcd_ldflags" -o "$out/etcd.new" .)
	mv -f "$out/etcd.new" "$out/etcd"
	echo "envtest: building kube-apiserver $k8s_version (about 6 min or more on 2 cores)"
	(cd "$src/kube-apiserver" && "$go" build -ldflags "$apiserver_ldflags" -o "$out/kube-apiserver.new" .)
	mv -f "$out/kube-apiserver.new" "$out/kube-apiserver"
	echo "$want" >"$out/VERSION"
fi

# envtest uses kubectl only for some helpers: link it when there is one.
kubectl="${KUBECTL:-$(command -v kubectl || true)}"
if [[ -z "$kubectl" && -x /usr/bin/kubectl ]]; then
	kubectl=/usr/bin/kubectl
fi
if [[ -n "$kubectl" ]]; then
	ln -sfn "$(readlink -f "$kubectl")" "$out/kubectl"
else
	rm -f "$out/kubectl"
	echo "envtest: no kubectl on this machine; envtest's kubectl helpers will not work (our tests do not need them)"
fi

echo "KUBEBUILDER_ASSETS=$out"
