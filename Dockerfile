# The controller image: `kubectl-ingress controller` and Debian's nginx with
# its Lua module, as a non-root user that may only bind ports below 1024.
#
#   docker build -t kubectl-ingress:dev --build-arg VERSION=$(git describe --tags --always) .
#
# Not built in this repository's CI (no Docker engine there): a test
# (internal/releasecheck) checks that the apt packages below are exactly
# those of hack/deps.sh (`make deps`, what every nginx test runs on) and the
# basics of this file. docs/release.md tells how the image is built and run.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
ARG DATE=unknown
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.date=${DATE}" \
      -o /out/kubectl-ingress ./cmd/kubectl-ingress

FROM debian:bookworm-slim

# uid/gid 101, the uid ingress-nginx's image runs as, so that the
# runAsUser/fsGroup of existing ingress-nginx manifests and policies still
# match. Made before the packages so that no package's system user takes it.
RUN groupadd --system --gid 101 kubectl-ingress \
 && useradd --system --uid 101 --gid 101 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin kubectl-ingress

COPY --from=build /out/kubectl-ingress /kubectl-ingress

# The runtime packages are exactly hack/deps.sh's; the modules that
# nginx.conf loads (pkg/render) must be there. libcap2-bin is only for setcap
# and is purged in the same layer.
#
# Who binds 80/443: the nginx master (the controller starts it as a child
# process; the workers inherit the sockets). nginx therefore gets
# cap_net_bind_service as a file capability. The controller gets it too,
# although it binds only :10254: with allowPrivilegeEscalation: false (no_new_privs)
# the kernel grants a file capability at exec only if the parent process
# already has it in its permitted set, so every program on the exec chain
# (/kubectl-ingress → nginx) must carry it. The pod must then add
# NET_BIND_SERVICE (capabilities: drop [ALL], add [NET_BIND_SERVICE]):
# without it in the bounding set the kernel refuses to exec either binary.
#
# Debian's package starts nothing here (no init in a container), but it lays
# out /etc/nginx and /var/lib/nginx for its own nginx; the controller uses
# neither: everything nginx writes is under its prefix (nginx.conf, lua/,
# certs/, logs/, tmp/, nginx.pid), /etc/kubectl-ingress by default.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      nginx libnginx-mod-http-lua lua-resty-core lua-cjson libnginx-mod-stream libnginx-mod-stream-js libnginx-mod-http-headers-more-filter libnginx-mod-http-brotli-filter libnginx-mod-http-modsecurity modsecurity-crs libnginx-mod-http-geoip2 \
 && for m in ndk_http_module ngx_http_lua_module ngx_stream_module ngx_stream_js_module; do \
      test -f /usr/lib/nginx/modules/$m.so || { echo "missing nginx module $m" >&2; exit 1; }; \
    done \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libcap2-bin \
 && setcap cap_net_bind_service=+ep /usr/sbin/nginx \
 && setcap cap_net_bind_service=+ep /kubectl-ingress \
 && DEBIAN_FRONTEND=noninteractive apt-get purge -y --auto-remove libcap2-bin \
 && rm -rf /var/lib/apt/lists/* /var/log/nginx/* \
 && install -d -o 101 -g 101 -m 0755 /etc/kubectl-ingress /etc/ingress-controller/geoip

# Read-only root filesystem: the only directory written is the nginx prefix
# (--nginx-prefix, default /etc/kubectl-ingress). Mount an emptyDir there
# (and one on /tmp for anything else that wants a temporary file); the image's
# own directory, owned by uid 101, serves when the root filesystem is writable.
# The GeoIP2 databases of use-geoip2 are downloaded (--maxmind-license-key)
# to, or mounted in, /etc/ingress-controller/geoip (--maxmind-db-dir), as
# with ingress-nginx; with a read-only root filesystem it needs a volume too.
VOLUME ["/etc/kubectl-ingress"]

USER 101:101
EXPOSE 80 443 10254
ENTRYPOINT ["/kubectl-ingress", "controller"]
