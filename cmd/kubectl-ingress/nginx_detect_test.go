package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
)

// nginx -V of OpenResty 1.25.3.1 as its Linux packages build it
// (configure arguments shortened to the ones that matter here).
const openrestyV = `nginx version: openresty/1.25.3.1
built with OpenSSL 3.0.13 30 Jan 2024
TLS SNI support enabled
configure arguments: --prefix=/usr/local/openresty/nginx --with-cc-opt=-O2 --add-module=../ngx_devel_kit-0.3.3 --add-module=../echo-nginx-module-0.63 --add-module=../headers-more-nginx-module-0.37 --add-module=../ngx_lua-0.10.26 --add-module=../stream-lua-nginx-module-0.0.14 --with-ld-opt=-Wl,-rpath,/usr/local/openresty/luajit/lib --with-stream --with-stream_ssl_module --with-http_ssl_module --with-http_v2_module
`

// Fedora's nginx: another modules directory, no Lua.
const fedoraV = `nginx version: nginx/1.26.3
configure arguments: --prefix=/usr/share/nginx --sbin-path=/usr/sbin/nginx --modules-path=/usr/lib64/nginx/modules --with-stream=dynamic --add-dynamic-module=../njs/nginx
`

func TestParseNginxV(t *testing.T) {
	o := parseNginxV(openrestyV)
	wantBuiltin := []string{"ndk_http_module.so", "ngx_http_headers_more_filter_module.so", "ngx_http_lua_module.so", "ngx_stream_module.so"}
	if o.Version != "openresty/1.25.3.1" || o.ModulesDir != "/usr/local/openresty/nginx/modules" || !slices.Equal(o.Builtin, wantBuiltin) {
		t.Errorf("OpenResty: %+v", o)
	}
	// Everything nginx.conf needs is built in: no modules directory needed.
	if err := o.check("/nonexistent"); err != nil {
		t.Errorf("OpenResty check: %v", err)
	}
	f := parseNginxV(fedoraV)
	if f.Version != "nginx/1.26.3" || f.ModulesDir != "/usr/lib64/nginx/modules" || len(f.Builtin) != 0 {
		t.Errorf("Fedora: %+v", f)
	}
	f.Binary = "/usr/sbin/nginx"
	if err := f.check(t.TempDir()); err == nil || !strings.Contains(err.Error(), "lacks ndk_http_module.so, ngx_http_lua_module.so") {
		t.Errorf("Fedora without Lua: %v", err)
	}
}

// Debian's nginx, as the tests and the image run it.
func TestDetectDebianNginx(t *testing.T) {
	nginxtest.Require(t)
	n, err := detectNginx(t.Context(), "nginx")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(n.Version, "nginx/") || n.ModulesDir != "/usr/lib/nginx/modules" || len(n.Builtin) != 0 {
		t.Errorf("%+v", n)
	}
	if err := n.check(""); err != nil {
		t.Error(err)
	}
	// Debian's layout changes nothing in the printed nginx.conf.
	f := NewRenderFlags()
	n.apply(&f)
	def := NewRenderFlags()
	if f.ConfOptions().ModulesDir != def.ConfOptions().ModulesDir {
		t.Errorf("modules dir %q", f.ConfOptions().ModulesDir)
	}
}

// render --validate with OpenResty: the configuration it checks loads no
// module that OpenResty has built in (a fake openresty that refuses any
// load_module, and answers -V as OpenResty does).
func TestRenderValidateWithOpenResty(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "openresty")
	script := "#!/bin/sh\nif [ \"$1\" = -V ]; then cat >&2 <<'EOF'\n" + openrestyV + "EOF\nexit 0; fi\n" +
		`conf=""; prefix=""
while [ $# -gt 0 ]; do case "$1" in -c) conf="$2"; shift;; -p) prefix="$2"; shift;; esac; shift; done
case "$conf" in /*) ;; *) conf="$prefix/$conf";; esac
if grep -q load_module "$conf"; then echo "nginx: [emerg] load_module of a built-in module in $conf:2" >&2; exit 1; fi
echo "nginx: the configuration file $conf syntax is ok" >&2
echo "nginx: configuration file $conf test is successful" >&2
exit 0
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, "", "render", "-f", "../../examples", "-o", "nginx", "--validate", "--nginx-binary", fake)
	if code != 0 || !strings.Contains(errOut, "nginx -t: the configuration is valid") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// What is printed is still the configuration of the image (Debian).
	if !strings.Contains(out, `load_module "/usr/lib/nginx/modules/ngx_http_lua_module.so";`) {
		t.Error("the printed nginx.conf lost its load_module lines")
	}
	t.Setenv(envNginxBinary, fake)
	if code, _, errOut := runCmd(t, "", "render", "-f", "../../examples", "-o", "nginx", "--validate"); code != 0 {
		t.Errorf("$%s: exit %d: %s", envNginxBinary, code, errOut)
	}
}

func TestFindNginx(t *testing.T) {
	t.Setenv(envNginxBinary, "")
	only := func(found ...string) func(string) (string, error) {
		return func(name string) (string, error) {
			if slices.Contains(found, name) {
				return name, nil
			}
			return "", errors.New("not found")
		}
	}
	if p, err := findNginx("nginx", only("openresty")); err != nil || p != "openresty" {
		t.Errorf("OpenResty on PATH: %q %v", p, err)
	}
	if p, err := findNginx("nginx", only("/opt/homebrew/bin/openresty")); err != nil || p != "/opt/homebrew/bin/openresty" {
		t.Errorf("Homebrew: %q %v", p, err)
	}
	if _, err := findNginx("/opt/nginx", only("/usr/sbin/nginx")); err == nil || !strings.Contains(err.Error(), `nginx not found ("/opt/nginx"`) {
		t.Errorf("a named binary is not replaced by another: %v", err)
	}
	_, err := findNginx("nginx", only())
	if err == nil || !strings.Contains(err.Error(), "--nginx-binary or $KUBECTL_INGRESS_NGINX") {
		t.Errorf("none: %v", err)
	}
}

func TestInstallHint(t *testing.T) {
	for _, tc := range []struct{ goos, release, want string }{
		{"linux", "ID=debian\n", "apt-get install nginx libnginx-mod-http-lua"},
		{"linux", "ID=ubuntu\nID_LIKE=debian\n", "apt-get install"},
		{"linux", "ID=alpine\n", "apk add nginx nginx-mod-http-lua"},
		{"linux", `ID="fedora"` + "\n", "OpenResty"},
		{"linux", "ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n", "OpenResty"},
		{"darwin", "", "brew install openresty/brew/openresty"},
		{"windows", "", "WSL"},
		{"linux", "", "OpenResty"},
	} {
		if got := installHint(tc.goos, tc.release); !strings.Contains(got, tc.want) {
			t.Errorf("%s %q: %q lacks %q", tc.goos, tc.release, got, tc.want)
		}
	}
}
