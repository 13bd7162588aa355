package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// envNginxBinary names the nginx binary when --nginx-binary is not given.
const envNginxBinary = "KUBECTL_INGRESS_NGINX"

// nginxCandidates are where nginx (or OpenResty's) is found when "nginx"
// is not on PATH: OpenResty's packages (Linux) and Homebrew (macOS).
var nginxCandidates = []string{
	"openresty",
	"/usr/sbin/nginx",
	"/usr/local/openresty/bin/openresty",
	"/usr/local/openresty/nginx/sbin/nginx",
	"/opt/homebrew/bin/openresty",
	"/usr/local/bin/openresty",
	"/opt/homebrew/bin/nginx",
	"/usr/local/bin/nginx",
}

// The module files that nginx.conf loads, by the directory of their source
// that an nginx built with them names in --add-module (compiled in).
var moduleSources = []struct{ file, source string }{
	{"ndk_http_module.so", "ngx_devel_kit"},
	{"ngx_http_lua_module.so", "ngx_lua"},
	{"ngx_http_lua_module.so", "lua-nginx-module"},
	{"ngx_http_headers_more_filter_module.so", "headers-more-nginx-module"},
	{"ngx_stream_js_module.so", "njs"},
	{"ngx_http_brotli_filter_module.so", "ngx_brotli"},
	{"ngx_http_modsecurity_module.so", "ModSecurity-nginx"},
	{"ngx_http_geoip2_module.so", "ngx_http_geoip2_module"},
}

// nginxInstall is what `nginx -V` says about an nginx.
type nginxInstall struct {
	Binary string
	// Version is "nginx/1.22.1" or "openresty/1.25.3.1".
	Version string
	// ModulesDir is --modules-path, else PREFIX/modules.
	ModulesDir string
	// Builtin are the module files compiled in (OpenResty: Lua, NDK,
	// headers-more, stream).
	Builtin []string
}

// parseNginxV reads the output of `nginx -V`.
func parseNginxV(out string) nginxInstall {
	var n nginxInstall
	prefix := "/usr/local/nginx"
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "nginx version: "); ok {
			n.Version, _, _ = strings.Cut(v, " ")
		}
		args, ok := strings.CutPrefix(strings.TrimSpace(line), "configure arguments:")
		if !ok {
			continue
		}
		for _, a := range strings.Fields(args) {
			switch {
			case strings.HasPrefix(a, "--modules-path="):
				n.ModulesDir = strings.TrimPrefix(a, "--modules-path=")
			case strings.HasPrefix(a, "--prefix="):
				prefix = strings.TrimPrefix(a, "--prefix=")
			case a == "--with-stream":
				n.Builtin = append(n.Builtin, "ngx_stream_module.so")
			case strings.HasPrefix(a, "--add-module="):
				src := strings.TrimPrefix(a, "--add-module=")
				for _, m := range moduleSources {
					if strings.Contains(filepath.Base(strings.TrimSuffix(src, "/")), m.source) || strings.Contains(src, "/"+m.source) {
						n.Builtin = append(n.Builtin, m.file)
					}
				}
			}
		}
	}
	if n.ModulesDir == "" {
		n.ModulesDir = filepath.Join(prefix, "modules")
	}
	slices.Sort(n.Builtin)
	n.Builtin = slices.Compact(n.Builtin)
	return n
}

// findNginx resolves the nginx binary: the name given (a path or a name on
// PATH), or, for the default "nginx", $KUBECTL_INGRESS_NGINX, then nginx on
// PATH, then nginxCandidates. Not found: an error that says what to
// install on this system.
func findNginx(name string, lookPath func(string) (string, error)) (string, error) {
	if name == "" || name == "nginx" {
		if env := os.Getenv(envNginxBinary); env != "" {
			name = env
		}
	}
	if p, err := lookPath(name); err == nil {
		return p, nil
	}
	if name == "nginx" {
		for _, c := range nginxCandidates {
			if p, err := lookPath(c); err == nil {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("nginx not found (%q, not on PATH nor at the usual places; --nginx-binary or $%s names it): %s", name, envNginxBinary, installHint(runtime.GOOS, readOSRelease()))
}

// detectNginx finds the binary and asks it `nginx -V`. An nginx that does
// not answer -V (a test double) gets Debian's layout.
func detectNginx(ctx context.Context, name string) (nginxInstall, error) {
	bin, err := findNginx(name, exec.LookPath)
	if err != nil {
		return nginxInstall{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "-V")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "nginx version:") {
		return nginxInstall{Binary: bin}, nil
	}
	n := parseNginxV(out.String())
	n.Binary = bin
	return n, nil
}

// requiredModules are the module files every nginx.conf needs.
var requiredModules = []string{"ndk_http_module.so", "ngx_http_lua_module.so", "ngx_http_headers_more_filter_module.so"}

// check fails when a module nginx.conf needs is neither built in nor a
// file of the modules directory, saying what to install.
func (n nginxInstall) check(dir string) error {
	if n.Version == "" {
		return nil // not an nginx that answers -V: nothing known
	}
	if dir == "" {
		dir = n.ModulesDir
	}
	var missing []string
	for _, m := range requiredModules {
		if slices.Contains(n.Builtin, m) {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, m)); err != nil {
			missing = append(missing, m)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%s (%s) lacks %s in %s (--nginx-modules-dir names another directory): %s",
		n.Binary, n.Version, strings.Join(missing, ", "), dir, installHint(runtime.GOOS, readOSRelease()))
}

// apply gives the install's modules to the render flags, unless
// --nginx-modules-dir was given.
func (n nginxInstall) apply(f *RenderFlags) {
	if n.Version == "" {
		return
	}
	if f.ModulesDir == "" {
		f.ModulesDir = n.ModulesDir
	}
	f.BuiltinModules = n.Builtin
}

// readOSRelease gives /etc/os-release ("" when there is none).
func readOSRelease() string {
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return ""
	}
	return string(b)
}

// installHint says what to install for nginx with Lua on this system.
func installHint(goos, osRelease string) string {
	id := func(names ...string) bool {
		for _, line := range strings.Split(osRelease, "\n") {
			k, v, ok := strings.Cut(line, "=")
			if !ok || (k != "ID" && k != "ID_LIKE") {
				continue
			}
			for _, f := range strings.Fields(strings.Trim(v, `"'`)) {
				if slices.Contains(names, f) {
					return true
				}
			}
		}
		return false
	}
	switch {
	case goos == "darwin":
		return "install OpenResty (nginx with Lua built in): brew install openresty/brew/openresty"
	case goos == "windows":
		return "nginx for Windows has no Lua module: run kubectl ingress in WSL (Ubuntu: apt-get install nginx libnginx-mod-http-lua lua-resty-core lua-cjson libnginx-mod-http-headers-more-filter)"
	case id("debian", "ubuntu"):
		return "apt-get install nginx libnginx-mod-http-lua lua-resty-core lua-cjson libnginx-mod-http-headers-more-filter (and libnginx-mod-stream libnginx-mod-stream-js for TCP/UDP services)"
	case id("alpine"):
		return "apk add nginx nginx-mod-http-lua nginx-mod-http-headers-more nginx-mod-stream nginx-mod-stream-js lua-resty-core lua5.1-cjson"
	case id("fedora", "rhel", "centos", "rocky", "almalinux"):
		return "Fedora/RHEL ship no Lua module for nginx: install OpenResty from its repository (https://openresty.org/en/linux-packages.html), then --nginx-binary /usr/local/openresty/bin/openresty"
	}
	return "install nginx with the Lua (ngx_http_lua, NDK) and headers-more modules, or OpenResty (https://openresty.org)"
}
