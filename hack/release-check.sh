#!/usr/bin/env bash
# make release-check: what a release would do, on this machine's platform
# only, without publishing anything (docs/release.md).
#
#  1. goreleaser check: .goreleaser.yaml is valid.
#  2. A snapshot release (--snapshot --clean) of this machine's platform:
#     the build, the archive with the LICENSE and kubectl_complete-ingress,
#     and checksums.txt, under dist/.
#     goreleaser's `build --single-target` builds one platform but makes no
#     archive, and `release` has no such flag, so goreleaser reads
#     .goreleaser.yaml with its goos/goarch lists narrowed to this platform.
#  3. The built binary's `version` shows the stamped version and commit.
#  4. The krew manifest rendered from .krew.yaml with that archive's checksum
#     (the other platforms are left out), checked with krew's own
#     validate-krew-manifest, then installed by krew itself from the archive
#     into a temporary KREW_ROOT (checks sha256, files and bin), and run.
#  5. The tools module's tests: the manifest of all six platforms passes
#     krew's validation (hack/tools/krewmanifest).
#
# goreleaser, krew and validate-krew-manifest are tools of hack/tools/go.mod,
# built from the Go module proxy the first time (goreleaser: minutes).
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
goos=$("$GO" env GOOS)
goarch=$("$GO" env GOARCH)
platform=${goos}_${goarch}

step() { printf '\n== release-check: %s\n' "$*"; }
goreleaser() { "$GO" tool -modfile=hack/tools/go.mod goreleaser "$@"; }
tool() { "$GO" tool -modfile=hack/tools/go.mod "$@"; }

# goreleaser reads the repository's URL (git ls-remote --get-url) and, when
# that fails, stamps "none" for the commit. A clone without a remote gets
# the project's URL through git's environment (.git/config is not touched).
if [ -z "$(git remote)" ]; then
	export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url
	export GIT_CONFIG_VALUE_0=https://github.com/kubectl-ingress/kubectl-ingress.git
fi

step "goreleaser check"
goreleaser check

step "snapshot release of $platform"
narrowed=$(sed -E \
	-e "s/^(    goos:) \[.*\]$/\1 [$goos]/" \
	-e "s/^(    goarch:) \[.*\]$/\1 [$goarch]/" .goreleaser.yaml)
if [ "$(grep -cE "^    goos: \[$goos\]$|^    goarch: \[$goarch\]$" <<<"$narrowed")" != 2 ]; then
	echo "release-check: .goreleaser.yaml must have one '    goos: [...]' and one '    goarch: [...]' line to narrow" >&2
	exit 1
fi
goreleaser release --snapshot --clean --config - <<<"$narrowed"

step "stamped version"
bin=$(find dist -path "dist/kubectl-ingress_${platform}*/kubectl-ingress" -type f | head -n 1)
out=$("$bin" version)
echo "$bin version: $out"
commit=$(git rev-parse --short HEAD)
case "$out" in
*"-snapshot+"*"(commit $commit, built "*) ;;
*) echo "release-check: want a snapshot version and commit $commit in: $out" >&2; exit 1 ;;
esac

step "archive and checksum"
archive=dist/kubectl-ingress_${platform}.tar.gz
[ "$goos" = windows ] && archive=dist/kubectl-ingress_${platform}.zip
contents=$(tar -tzf "$archive" | LC_ALL=C sort | tr '\n' ' ')
if [ "$contents" != "LICENSE kubectl-ingress kubectl_complete-ingress " ]; then
	echo "release-check: $archive holds: $contents; want LICENSE kubectl-ingress kubectl_complete-ingress" >&2
	exit 1
fi
(cd dist && sha256sum -c checksums.txt)

step "krew manifest"
tag=v$(sed -E 's/^kubectl-ingress (v[^ ]+) .*/\1/; s/^v//' <<<"$out")
(cd hack/tools && "$GO" run ./krewmanifest -template ../../.krew.yaml -checksums ../../dist/checksums.txt \
	-tag "$tag" -allow-missing -o ../../dist/krew/ingress.yaml)
tool validate-krew-manifest -manifest dist/krew/ingress.yaml -skip-install
krew_root=$(mktemp -d)
trap 'rm -rf "$krew_root"' EXIT
KREW_ROOT=$krew_root tool krew install --manifest=dist/krew/ingress.yaml --archive="$archive" </dev/null
"$krew_root/bin/kubectl-ingress" version
# The completion script is installed beside the plugin, executable (the
# caveats tell how to put it on PATH).
completion="$krew_root/store/ingress/$tag/kubectl_complete-ingress"
[ -x "$completion" ] || { echo "release-check: krew did not install $completion" >&2; exit 1; }
# The answer is read whole before it is searched: with pipefail, grep -q
# quitting at "nginx" while the script still writes its last line (":4")
# failed the pipeline by SIGPIPE (2 runs in 200 here).
completed=$(PATH="$krew_root/bin:$PATH" "$completion" render --output "" 2>/dev/null) || { echo "release-check: $completion failed" >&2; exit 1; }
grep -qx nginx <<<"$completed" || { echo "release-check: $completion does not complete (it answered: $completed)" >&2; exit 1; }

step "krew manifest of all platforms (hack/tools tests)"
(cd hack/tools && "$GO" test ./krewmanifest -count=1)

step "ok"
