#!/usr/bin/env bash
# Installs what the tests need from Debian's packages, only when missing:
# nginx with its Lua module, lua-resty-core and lua-cjson, and the stream
# module with njs for TCP/UDP services and SSL passthrough (lua/STREAM.md),
# and the openssl command (the cipher names of pkg/annotations).
set -euo pipefail

packages=(nginx libnginx-mod-http-lua lua-resty-core lua-cjson libnginx-mod-stream libnginx-mod-stream-js libnginx-mod-http-headers-more-filter libnginx-mod-http-brotli-filter libnginx-mod-http-modsecurity modsecurity-crs libnginx-mod-http-geoip2)
# what the tests need beside the image's packages (the Dockerfile installs
# packages=(…) alone: internal/releasecheck)
test_packages=(openssl)
missing=()
for p in "${packages[@]}" "${test_packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: ${packages[*]} ${test_packages[*]} already installed"
	exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
	sudo="sudo"
fi
echo "deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian's package starts a system nginx on port 80; the project runs its own
# under a prefix and needs none.
if command -v nginx >/dev/null && [ -f /run/nginx.pid ]; then
	$sudo nginx -s quit 2>/dev/null || true
fi
nginx -v
