package nginxconf

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/internal/nginxtest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/nginx"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// The sweep: every annotation of annotations.AnnotationDocs and every ConfigMap key
// of annotations.ConfigKeyDocs at the extreme values its validator accepts (min,
// max, the longest, every enum value, each size suffix, 0 …), rendered
// and checked by a real nginx -t. A value render accepts and nginx
// refuses would stop every reload of every tenant; each one found is a
// limit render must enforce (see values.go and the tables).

// sweepEntry is the values of one annotation or key, and the annotations
// an annotation needs to take effect.
type sweepEntry struct {
	values []string
	needs  []string // annotation name, value, …
}

// Long values at the validators' limits.
var (
	sweepTokenChars = "!#%&*+-.^_|~"
	sweepToken      = strings.Repeat("t", 256-len(sweepTokenChars)) + sweepTokenChars
	sweepHost253    = hostOfLength(253)
	sweepPathTail   = "-._~%!&()*+,=:@/?"
	sweepPath2048   = "/" + strings.Repeat("p", 2047-len(sweepPathTail)) + sweepPathTail
	sweepPath1024   = "/" + strings.Repeat("p", 1023-len(sweepPathTail)) + sweepPathTail
	sweepPathChars  = "/-._~%25!&()*+,=:@/?x"
	sweepRewrite    = "/" + strings.Repeat("$9", 1023)
	sweepURL2048    = "https://" + hostOfLength(200) + ":65535/" + strings.Repeat("u", 2048-len("https://")-200-len(":65535/"))
	sweepHashBy     = strings.Repeat("$request_uri", 20) + "${host}:-./" // 251 bytes
	sweepTokenList  = sweepTokenListOf(2048)
	sweepRegex1024  = "^(" + strings.Repeat("a|", 509) + "b)$"
	sweepHeader1024 = strings.Repeat("v ", 511) + "vv"
	sweepService63  = "s" + strings.Repeat("x", 61) + "z"
)

// sweepTokenListOf is a comma separated list of tokens, n bytes once
// joined with ", " (the longer of the two separators).
func sweepTokenListOf(n int) string {
	var list []string
	size := -2
	for i := 0; size+2+8 <= n; i++ {
		e := fmt.Sprintf("X-H%05d", i)
		list = append(list, e)
		size += 2 + len(e)
	}
	if rest := n - size - 2; rest > 0 {
		list = append(list, strings.Repeat("Y", rest))
	}
	return strings.Join(list, ",")
}

func sweepCIDRs(n int) string {
	var list []string
	for i := 0; i < n; i++ {
		list = append(list, fmt.Sprintf("10.%d.%d.0/24", i/256, i%256), fmt.Sprintf("2001:db8:%x::/48", i))
	}
	return strings.Join(list, ",")
}

func sweepOrigins(n int) string {
	var list []string
	for i := 0; i < n; i++ {
		list = append(list, fmt.Sprintf("https://*.o%d.example.com:%d", i, 1+i%65535))
	}
	return strings.Join(list, ",")
}

func sweepAliases(n int) string {
	var list []string
	for i := 0; i < n; i++ {
		list = append(list, fmt.Sprintf("*.a%d.%s", i, hostOfLength(240)))
	}
	return strings.Join(list, ",")
}

// sweepAnnotations lists, per annotation, the values the sweep renders.
// TestSweepCoversTables requires an entry for every annotation.
var sweepAnnotations = map[string]sweepEntry{
	// authexternal.go (issue 12, helper A).
	"auth-url": {values: []string{"http://127.0.0.1/a", "https://$host/oauth2/auth?rd=$escaped_request_uri&m=$request_method",
		"http://[::1]:65535/x", "https://" + hostOfLength(253) + "/" + strings.Repeat("u", 2048-len("https://")-253-1), sweepAuthVars}},
	"auth-signin": {values: []string{"https://$host/oauth2/start?rd=$escaped_request_uri", "http://a/s", "http://a/s?",
		"https://" + hostOfLength(200) + ":65535/" + strings.Repeat("s", 2048-len("https://")-200-len(":65535/")), sweepAuthVars}, needs: sweepAuthNeeds},
	"auth-signin-redirect-param": {values: []string{"orig", strings.Repeat("p", 64)}, needs: append([]string{"auth-signin", "http://a/s"}, sweepAuthNeeds...)},
	"auth-response-headers":      {values: []string{"X-User", sweepAuthHeaders}, needs: sweepAuthNeeds},
	"auth-request-redirect":      {values: []string{"/", sweepAuthVars, "/" + strings.Repeat("r", 2047)}, needs: sweepAuthNeeds},
	"auth-method":                {values: []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "CONNECT", "OPTIONS", "TRACE"}, needs: sweepAuthNeeds},
	"auth-cache-key": {values: []string{"x", "$remote_user$http_authorization$cookie_session$arg_token", strings.Repeat("k", 256)},
		needs: sweepAuthNeeds},
	"auth-cache-duration": {values: []string{"200 202 401 5m", "999999999y 999999999M 999999999w 999999999d 999999999h 999999999m 999999999s",
		"100 599 1s, 200 1y, 401 1h 30m"}, needs: append([]string{"auth-cache-key", "k"}, sweepAuthNeeds...)},
	"auth-always-set-cookie": {values: []string{"true", "false"}, needs: sweepAuthNeeds},
	"auth-proxy-set-headers": {values: []string{"x", "sweep/" + sweepService63}, needs: sweepAuthNeeds},
	// auth-keepalive writes nothing; above 0 it is a Problem in the
	// columns with use-http2 "false", which the sweep refuses.
	"auth-keepalive":            {values: []string{"0"}, needs: sweepAuthNeeds},
	"auth-keepalive-requests":   {values: []string{"1", strconv.Itoa(annotations.MaxInt32)}, needs: sweepAuthNeeds},
	"auth-keepalive-share-vars": {values: []string{"true", "false"}, needs: sweepAuthNeeds},
	"auth-keepalive-timeout":    {values: []string{"1", strconv.Itoa(annotations.ValueMaxSeconds)}, needs: sweepAuthNeeds},
	"enable-global-auth":        {values: []string{"true", "false"}},
	"satisfy":                   {values: []string{"any", "all"}, needs: append([]string{"whitelist-source-range", "10.0.0.0/8"}, sweepAuthNeeds...)},
	"affinity":                  {values: []string{"cookie"}},
	"affinity-mode":             {values: []string{"balanced", "persistent"}, needs: []string{"affinity", "cookie"}},
	"affinity-canary-behavior":  {values: []string{"sticky", "legacy"}, needs: []string{"canary", "true"}},
	"allowlist-source-range":    {values: []string{"0.0.0.0/0", "::/0", "10.0.0.1", "2001:db8::1", sweepCIDRs(1000)}},
	"app-root":                  {values: []string{"/", sweepPath2048, sweepPathChars}},
	"backend-protocol":          {values: []string{"HTTP", "HTTPS", "GRPC", "GRPCS", "grpcs", "https"}},
	"canary":                    {values: []string{"true", "false"}},
	"canary-by-cookie":          {values: []string{"c", sweepToken}},
	"canary-by-header":          {values: []string{"h", sweepToken}},
	"canary-by-header-pattern": {values: []string{".*", sweepRegex1024, `^[a-z0-9]+(\.v[0-9]{1,3})?$`},
		needs: []string{"canary-by-header", "X-Canary"}},
	"canary-by-header-value":  {values: []string{"v", sweepHeader1024}, needs: []string{"canary-by-header", "X-Canary"}},
	"canary-weight":           {values: []string{"0", "100", strconv.Itoa(annotations.MaxInt32)}},
	"canary-weight-total":     {values: []string{"1", strconv.Itoa(annotations.MaxInt32)}, needs: []string{"canary-weight", "1"}},
	"cors-allow-credentials":  {values: []string{"true", "false"}, needs: []string{"enable-cors", "true"}},
	"cors-allow-headers":      {values: []string{"X", sweepTokenList}, needs: []string{"enable-cors", "true"}},
	"cors-allow-methods":      {values: []string{"GET", sweepTokenListOf(2047)}, needs: []string{"enable-cors", "true"}},
	"cors-allow-origin":       {values: []string{"*", "http://a.b", "https://" + hostOfLength(253) + ":65535", sweepOrigins(300)}, needs: []string{"enable-cors", "true"}},
	"cors-expose-headers":     {values: []string{"*", "X", sweepTokenList}, needs: []string{"enable-cors", "true"}},
	"cors-max-age":            {values: []string{"0", strconv.Itoa(annotations.MaxInt32)}, needs: []string{"enable-cors", "true"}},
	"default-backend":         {values: []string{sweepService63}},
	"denylist-source-range":   {values: []string{"0.0.0.0/0", "::/0", "192.0.2.1", sweepCIDRs(1000)}},
	"enable-cors":             {values: []string{"true", "false"}},
	"force-ssl-redirect":      {values: []string{"true", "false"}},
	"limit-allowlist":         {values: []string{"0.0.0.0/0", "::/0", "10.0.0.1", sweepCIDRs(1000)}, needs: []string{"limit-rps", "1"}},
	"limit-burst-multiplier":  {values: []string{"1", "1000"}, needs: []string{"limit-rps", strconv.Itoa(annotations.MaxInt32)}},
	"limit-connections":       {values: []string{"0", "1", strconv.Itoa(annotations.MaxLimitConn)}},
	"limit-rps":               {values: []string{"0", "1", strconv.Itoa(annotations.MaxInt32)}},
	"limit-whitelist":         {values: []string{"0.0.0.0/0", "2001:db8::1", sweepCIDRs(1000)}, needs: []string{"limit-connections", "1"}},
	"load-balance":            {values: []string{"round_robin", "ewma"}},
	"permanent-redirect":      {values: []string{"http://a", sweepURL2048, "https://[2001:db8::1]:65535/x?y=z&w#f"}},
	"permanent-redirect-code": {values: []string{"301", "302", "303", "307", "308"}, needs: []string{"permanent-redirect", "https://example.com"}},
	"proxy-body-size":         {values: []string{"0", "1", "999999999", "999999999k", "999999999K", "999999999m", "999999999g", "999999999G"}},
	"proxy-buffer-size":       {values: []string{"1", "999999999", "1048576k", "1024m", "1024M", "16k"}},
	"proxy-buffering":         {values: []string{"on", "off", "ON"}},
	"proxy-request-buffering": {values: []string{"off", "on"}},
	// proxy*.go, proxy_location.go, ratelimit.go (issue 12, helper D).
	"proxy-buffers-number":             {values: []string{"2", "3", strconv.Itoa(annotations.MaxProxyBuffers)}},
	"proxy-busy-buffers-size":          {values: []string{"4k", "8k", "12k", "12288"}, needs: []string{"proxy-buffer-size", "4k", "proxy-buffers-number", "4"}},
	"proxy-max-temp-file-size":         {values: []string{"0", "4k", "999999999m", "4096"}, needs: []string{"proxy-buffer-size", "4k"}},
	"proxy-next-upstream":              {values: []string{"error timeout invalid_header http_500 http_502 http_503 http_504 http_403 http_404 http_429 non_idempotent", "off", "error"}},
	"proxy-next-upstream-timeout":      {values: []string{"0", "1", strconv.Itoa(annotations.ValueMaxSeconds)}},
	"proxy-next-upstream-tries":        {values: []string{"0", "1", strconv.Itoa(annotations.MaxInt32)}},
	"proxy-http-version":               {values: []string{"1.0", "1.1"}},
	"proxy-cookie-domain":              {values: []string{"off", "localhost example.org", ".a.example " + sweepHost253}},
	"proxy-cookie-path":                {values: []string{"off", "/one/ /", sweepPathChars + " " + sweepPath1024}},
	"proxy-redirect-from":              {values: []string{"off", "default", "http://backend:8080/", sweepPath1024}, needs: []string{"proxy-redirect-to", "/x/"}},
	"proxy-redirect-to":                {values: []string{"/", "https://example.com/app/", sweepPath1024}, needs: []string{"proxy-redirect-from", "http://backend/"}},
	"client-body-buffer-size":          {values: []string{"1", "1024m", "16k"}},
	"connection-proxy-header":          {values: []string{"keep-alive", "close", sweepToken}},
	"enable-access-log":                {values: []string{"false", "true"}},
	"enable-rewrite-log":               {values: []string{"true", "false"}},
	"preserve-trailing-slash":          {values: []string{"true", "false"}, needs: []string{"force-ssl-redirect", "true"}},
	"use-port-in-redirects":            {values: []string{"true", "false"}},
	"limit-rpm":                        {values: []string{"0", "1", strconv.Itoa(annotations.MaxInt32)}},
	"limit-rate":                       {values: []string{"0", "1", strconv.Itoa(annotations.MaxInt32)}},
	"limit-rate-after":                 {values: []string{"0", "1", strconv.Itoa(annotations.MaxInt32)}},
	"proxy-connect-timeout":            {values: []string{"1", strconv.Itoa(annotations.ValueMaxSeconds)}},
	"proxy-read-timeout":               {values: []string{"1", strconv.Itoa(annotations.ValueMaxSeconds)}},
	"proxy-send-timeout":               {values: []string{"1", strconv.Itoa(annotations.ValueMaxSeconds)}},
	"rewrite-target":                   {values: []string{"/", "/$1", sweepRewrite, "https://example.com/$1?a=$2"}},
	"server-alias":                     {values: []string{"a.example.com", sweepHost253, "*." + hostOfLength(251), sweepAliases(50)}},
	"session-cookie-change-on-failure": {values: []string{"true", "false"}, needs: []string{"affinity", "cookie"}},
	"session-cookie-conditional-samesite-none": {values: []string{"true", "false"},
		needs: []string{"affinity", "cookie", "session-cookie-samesite", "None"}},
	"session-cookie-domain":   {values: []string{sweepHost253, "." + hostOfLength(252)}, needs: []string{"affinity", "cookie"}},
	"session-cookie-expires":  {values: []string{"0", strconv.Itoa(annotations.MaxInt32)}, needs: []string{"affinity", "cookie"}},
	"session-cookie-max-age":  {values: []string{"0", strconv.Itoa(annotations.MaxInt32)}, needs: []string{"affinity", "cookie"}},
	"session-cookie-name":     {values: []string{"c", sweepToken}, needs: []string{"affinity", "cookie"}},
	"session-cookie-path":     {values: []string{"/", sweepPath2048}, needs: []string{"affinity", "cookie"}},
	"session-cookie-samesite": {values: []string{"None", "Lax", "Strict", "none"}, needs: []string{"affinity", "cookie"}},
	"session-cookie-secure":   {values: []string{"true", "false"}, needs: []string{"affinity", "cookie"}},
	"service-upstream":        {values: []string{"true", "false"}},
	"ssl-passthrough":         {values: []string{"true", "false"}},
	"ssl-redirect":            {values: []string{"true", "false"}},
	"temporal-redirect":       {values: []string{"http://a", sweepURL2048}},
	"temporal-redirect-code":  {values: []string{"301", "302", "303", "307"}, needs: []string{"temporal-redirect", "https://example.com"}},
	"upstream-hash-by":        {values: []string{"$request_uri", sweepHashBy, "${host}x"}},
	"upstream-hash-by-subset": {values: []string{"true", "false"}, needs: []string{"upstream-hash-by", "$host"}},
	"upstream-hash-by-subset-size": {values: []string{"1", "1000"},
		needs: []string{"upstream-hash-by", "$host", "upstream-hash-by-subset", "true"}},
	"upstream-vhost": {values: []string{"a", sweepHost253 + ":65535", "$service_name.$namespace.svc.cluster.local:$service_port"}},
	// errorpages.go (issue 12, helper C): every code at once, with the
	// default-backend annotation's Service or the built-in one.
	"custom-http-errors":             {values: []string{"404", " 503 , 404 ", sweepStatusCodes(400)}},
	"disable-proxy-intercept-errors": {values: []string{"true", "false"}, needs: []string{"custom-http-errors", "404,503", "default-backend", sweepService63}},
	"use-regex":                      {values: []string{"true", "false"}},
	"whitelist-source-range":         {values: []string{"0.0.0.0/0", sweepCIDRs(1000)}},
	"x-forwarded-prefix":             {values: []string{"/", "a", sweepPath2048, sweepPathChars}},
	// mirror, headers, www redirect, ciphers, FastCGI: nginxsweep_e_test.go.
	"mirror-target":             {values: sweepMirrorTargets},
	"mirror-request-body":       {values: []string{"off", "on"}, needs: []string{"mirror-target", "http://10.0.0.1"}},
	"mirror-host":               {values: []string{"a", sweepHost253 + ":65535"}, needs: []string{"mirror-target", "https://10.0.0.1"}},
	"custom-headers":            {values: []string{sweepCustomHeadersCM}},
	"from-to-www-redirect":      {values: []string{"true", "false"}},
	"ssl-ciphers":               {values: []string{"HIGH:!aNULL:!MD5", "ECDHE-ECDSA-AES128-GCM-SHA256", "DEFAULT@SECLEVEL=1"}},
	"ssl-prefer-server-ciphers": {values: []string{"true", "false"}},
	"fastcgi-index":             {values: []string{"index.php", sweepFastCGIIndex}, needs: []string{"backend-protocol", "FCGI"}},
	"fastcgi-params-configmap":  {values: []string{sweepFastCGICM}, needs: []string{"backend-protocol", "FCGI"}},

	// Translated snippets (issue 13): what the corpus's snippets hold and
	// every allowlisted directive (nginxconf_snippet_sweep_test.go), also
	// beside every other annotation in the columns.
	"configuration-snippet": {values: sweepConfigurationSnippets},
	"server-snippet":        {values: sweepServerSnippets},
}

// sweepConfigKeys lists, per ConfigMap key, the values the sweep renders.
var sweepConfigKeys = withGlobalSweep(map[string][]string{
	"add-headers":                       {"ingress-nginx/sweep-response", "ingress-nginx/sweep-empty"},
	"proxy-set-headers":                 {"sweep-request", "ingress-nginx/sweep-empty"},
	"global-allowed-response-headers":   {sweepAllowedHeaders},
	"global-auth-url":                   {"http://127.0.0.1/a", "https://$host/oauth2/auth?rd=$escaped_request_uri", sweepAuthVars},
	"global-auth-signin":                {"https://$host/start?rd=$scheme://$host$request_uri", "http://a/s"},
	"global-auth-signin-redirect-param": {"rd", strings.Repeat("p", 64)},
	"global-auth-response-headers":      {"X-User", sweepAuthHeaders},
	"global-auth-request-redirect":      {"Foo-Redirect", sweepAuthVars},
	"global-auth-method":                {"GET", "POST"},
	"global-auth-cache-key":             {"foo", strings.Repeat("k", 256)},
	"global-auth-cache-duration":        {"200 202 401 5m", "200 1h 30m, 401 1s"},
	"global-auth-always-set-cookie":     {"false", "true"},
	"no-auth-locations":                 {"/.well-known/acme-challenge", "/a,/b,/" + strings.Repeat("p", 1023)},
	"custom-http-errors":                {"503", "300,404,599"},
	"gzip-level":                        {"1", "9"},
	"gzip-types":                        {"*", "text/html", strings.Repeat("x", 22) + "/" + strings.Repeat("y", 23), sweepMIMETypes(200)},
	"hsts":                              {"true", "false"},
	"hsts-include-subdomains":           {"true", "false"},
	"hsts-max-age":                      {"0", strconv.Itoa(annotations.MaxInt32)},
	"hsts-preload":                      {"true", "false"},
	"keep-alive":                        {"0", strconv.Itoa(annotations.ValueMaxSeconds)},
	"keep-alive-requests":               {"1", strconv.Itoa(annotations.MaxInt32)},
	"load-balance":                      {"round_robin", "ewma"},
	"proxy-body-size":                   {"0", "999999999g", "999999999m", "999999999k", "999999999"},
	"proxy-buffer-size":                 {"1", "1024m", "1048576k", "999999999", "16k"},
	"proxy-buffering":                   {"on", "off"},
	"proxy-request-buffering":           {"off", "on"},
	// Aligned with proxy-buffer-size's column values: the busy and
	// temporary file sizes fit each column's buffers (proxy_check.go).
	"proxy-buffers-number":           {"4", "2", "3", "4096", "8"},
	"proxy-busy-buffers-size":        {"3", "1024m", "2048m", "999999999", "32k"},
	"proxy-max-temp-file-size":       {"0", "1024m", "999999999m", "1048576k", "16k"},
	"proxy-next-upstream":            {"error timeout", "off", "error timeout invalid_header http_500 http_502 http_503 http_504 http_403 http_404 http_429 non_idempotent"},
	"proxy-next-upstream-timeout":    {"0", "1", strconv.Itoa(annotations.ValueMaxSeconds)},
	"proxy-next-upstream-tries":      {"3", "0", "1", strconv.Itoa(annotations.MaxInt32)},
	"proxy-http-version":             {"1.1", "1.0"},
	"proxy-cookie-domain":            {"off", "localhost example.org"},
	"proxy-cookie-path":              {"off", "/one/ /"},
	"proxy-redirect-from":            {"off", "default", "http://backend/"},
	"proxy-redirect-to":              {"off", "/x/"},
	"retry-non-idempotent":           {"false", "true"},
	"proxy-stream-responses":         {"1", "0", strconv.Itoa(annotations.MaxInt32)},
	"preserve-trailing-slash":        {"false", "true"},
	"use-port-in-redirects":          {"false", "true"},
	"proxy-add-original-uri-header":  {"false", "true"},
	"disable-ipv6":                   {"false", "true"},
	"client-body-buffer-size":        {"8k", "1", "1024m"},
	"client-body-timeout":            {"60", "1", strconv.Itoa(annotations.ValueMaxSeconds)},
	"client-header-buffer-size":      {"1k", "1", "1024m"},
	"client-header-timeout":          {"60", "1", strconv.Itoa(annotations.ValueMaxSeconds)},
	"large-client-header-buffers":    {"4 8k", "1 512", "1024 1024m"},
	"enable-underscores-in-headers":  {"false", "true"},
	"ignore-invalid-headers":         {"true", "false"},
	"limit-req-status-code":          {"503", "400", "599"},
	"limit-conn-status-code":         {"503", "599", "400"},
	"limit-rate":                     {"0", "1", strconv.Itoa(annotations.MaxInt32)},
	"limit-rate-after":               {"0", "1", strconv.Itoa(annotations.MaxInt32)},
	"proxy-connect-timeout":          {"1", strconv.Itoa(annotations.ValueMaxSeconds)},
	"proxy-read-timeout":             {"1", strconv.Itoa(annotations.ValueMaxSeconds)},
	"proxy-send-timeout":             {"1", strconv.Itoa(annotations.ValueMaxSeconds)},
	"server-tokens":                  {"true", "false"},
	"ssl-redirect":                   {"true", "false"},
	"upstream-keepalive-connections": {"0", "1", strconv.Itoa(annotations.MaxUpstreamKeepalive)},
	"use-forwarded-headers":          {"true", "false"},
	"use-gzip":                       {"true", "false"},
	"worker-processes":               {"auto", "1", "1024"},

	// "false" would make the sweep's snippets Problems
	"allow-snippet-annotations": {"true"},
})

func sweepMIMETypes(n int) string {
	var list []string
	for i := 0; i < n; i++ {
		list = append(list, fmt.Sprintf("application/x-t%d+json", i))
	}
	return strings.Join(list, " ")
}

// sweepSpec is the table entry of the annotation n, nil when none.
func sweepSpec(n string) *annotations.AnnotationDoc {
	for _, d := range annotations.AnnotationDocs() {
		if d.Name == n {
			return &d
		}
	}
	return nil
}

func TestSweepCoversTables(t *testing.T) {
	for _, s := range annotations.AnnotationDocs() {
		if len(sweepAnnotations[s.Name].values) == 0 {
			t.Errorf("annotation %s: no sweep values in sweepAnnotations", s.Name)
		}
	}
	for _, s := range annotations.ConfigKeyDocs() {
		if len(sweepConfigKeys[s.Key]) == 0 && !sweepNoValueKeys[s.Key] {
			t.Errorf("ConfigMap key %s: no sweep values in sweepConfigKeys", s.Key)
		}
	}
}

// sweepIngress is one Ingress of the sweep and what it stands for.
type sweepIngress struct {
	ing  *networkingv1.Ingress
	what string
	// primary is the Ingress a canary needs on its host and path.
	primary *networkingv1.Ingress
}

func sweepNewIngress(name, host string, ann map[string]string) *networkingv1.Ingress {
	prefix := networkingv1.PathTypePrefix
	class := "nginx"
	full := map[string]string{}
	for k, v := range ann {
		full[annotations.Prefix+k] = v
	}
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "sweep", Annotations: full,
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))},
		Spec: networkingv1.IngressSpec{IngressClassName: &class, Rules: []networkingv1.IngressRule{{Host: host,
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
				Path: "/", PathType: &prefix,
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "svc", Port: networkingv1.ServiceBackendPort{Number: 80}}},
			}}}}}}},
	}
}

// sweepIngresses makes one Ingress per annotation value (with what it
// needs), and "column" Ingresses that carry every annotation at once, the
// c-th value of each (redirects and canaries aside: they change what the
// location is), so that combinations (limit-rps × limit-burst-multiplier
// …) are rendered too.
func sweepIngresses() []sweepIngress {
	var out []sweepIngress
	names := make([]string, 0, len(sweepAnnotations))
	for n := range sweepAnnotations {
		names = append(names, n)
	}
	sort.Strings(names)
	columns := 0
	for _, n := range names {
		e := sweepAnnotations[n]
		columns = max(columns, len(e.values))
		for i, v := range e.values {
			ann := map[string]string{n: v}
			for k := 0; k+1 < len(e.needs); k += 2 {
				ann[e.needs[k]] = e.needs[k+1]
			}
			host := fmt.Sprintf("%s-%d.sweep.test", n, i)
			si := sweepIngress{ing: sweepNewIngress(fmt.Sprintf("%s-%d", n, i), host, ann), what: fmt.Sprintf("%s=%s", n, annotations.ValueQuote(v))}
			spec := sweepSpec(n)
			if n == "canary" || (spec != nil && spec.CanaryOnly) {
				ann["canary"] = "true"
				si.primary = sweepNewIngress(fmt.Sprintf("primary-%s-%d", n, i), host, nil)
				si.primary.CreationTimestamp = metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
			}
			out = append(out, si)
		}
	}
	for c := 0; c < columns; c++ {
		ann := map[string]string{}
		for _, n := range names {
			spec := sweepSpec(n)
			if n == "canary" || spec.CanaryOnly || strings.Contains(n, "redirect") && n != "ssl-redirect" && n != "force-ssl-redirect" ||
				n == "ssl-passthrough" || n == "app-root" || n == "server-alias" || n == "whitelist-source-range" || n == "limit-whitelist" ||
				// sized against their own buffers (needs), not each column's
				n == "proxy-busy-buffers-size" || n == "proxy-max-temp-file-size" ||
				// they need backend-protocol FCGI (needs), which columns do not have
				strings.HasPrefix(n, "fastcgi-") {
				continue
			}
			e := sweepAnnotations[n]
			ann[n] = e.values[c%len(e.values)]
		}
		ann["affinity"], ann["enable-cors"], ann["upstream-hash-by"] = "cookie", "true", sweepAnnotations["upstream-hash-by"].values[c%3]
		out = append(out, sweepIngress{ing: sweepNewIngress(fmt.Sprintf("column-%d", c), fmt.Sprintf("column-%d.sweep.test", c), ann),
			what: fmt.Sprintf("column %d: every annotation at its value %d", c, c)})
	}
	return out
}

// sweepSnapshot is the Ingresses (those not left out) with the ConfigMap
// column c: every key at its c-th value.
func sweepSnapshot(ings []sweepIngress, out map[string]bool, c int) render.Snapshot {
	s := render.Snapshot{
		IngressClasses: []*networkingv1.IngressClass{{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}},
		Services: []*corev1.Service{
			{ObjectMeta: metav1.ObjectMeta{Namespace: "sweep", Name: "svc"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.1", Ports: []corev1.ServicePort{{Port: 80}}}},
			{ObjectMeta: metav1.ObjectMeta{Namespace: "sweep", Name: sweepService63}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.2", Ports: []corev1.ServicePort{{Port: 80}}}},
		},
	}
	for _, si := range ings {
		if out[si.ing.Name] {
			continue
		}
		s.Ingresses = append(s.Ingresses, si.ing)
		if si.primary != nil {
			s.Ingresses = append(s.Ingresses, si.primary)
		}
	}
	data := map[string]string{}
	for k, vs := range sweepConfigKeys {
		data[k] = vs[c%len(vs)]
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ingress-nginx", Name: "ingress-nginx-controller"}, Data: data}
	s.ConfigMaps = append([]*corev1.ConfigMap{cm}, sweepAuthConfigMaps()...)
	s.ConfigMaps = append(s.ConfigMaps, sweepHeaderConfigMaps()...)
	s.Secrets = append(append([]*corev1.Secret(nil), sweepAuthSecrets()...), sweepTLSFileSecrets()...)
	return s
}

// TestNGINXAcceptsSweep renders the sweep and runs nginx -t on it: one
// config per ConfigMap column, with every sweep Ingress in each, by each
// writer (classic, and Lua routing: the Lua-routed Ingresses' values
// then reach nginx.conf only through the router's shape locations). A
// refusal on an Ingress's line takes that Ingress out and tests again, so
// that one run reports every refusal.
func TestNGINXAcceptsSweep(t *testing.T) {
	for _, routing := range []string{RoutingNginx, RoutingLua} {
		t.Run(routing, func(t *testing.T) { testNGINXAcceptsSweep(t, routing) })
	}
}

func testNGINXAcceptsSweep(t *testing.T, routing string) {
	in := nginxtest.Tester(t)
	co := DefaultConfOptions()
	co.Routing = routing
	ings := sweepIngresses()
	byName := map[string]sweepIngress{}
	for _, si := range ings {
		byName[si.ing.Name] = si
		if si.primary != nil {
			byName[si.primary.Name] = si
		}
	}
	opts := render.DefaultOptions()
	opts.EnableSSLPassthrough = true
	columns := 0
	for _, vs := range sweepConfigKeys {
		columns = max(columns, len(vs))
	}
	start, runs := time.Now(), 0
	for c := 0; c < columns; c++ {
		out := map[string]bool{}
		for round := 0; round < 40; round++ {
			cfg, problems := render.Build(sweepSnapshot(ings, out, c), opts)
			if round == 0 {
				for _, p := range problems {
					if strings.Contains(p.Field, "annotations") || p.Object.Kind == "ConfigMap" {
						t.Errorf("column %d: render refuses a sweep value (fix the sweep's list or the validator): %s", c, sweepCut(p.String()))
					}
				}
			}
			conf, owners, err := NGINXConfWithOwners(cfg, co)
			if err != nil {
				t.Fatalf("column %d: the writer refused: %v", c, err)
			}
			if err := sweepWriteFiles(in, cfg); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			err = in.Test(ctx, conf)
			cancel()
			runs++
			var te *nginx.TestError
			if err == nil {
				break
			}
			if !errors.As(err, &te) {
				t.Fatal(err)
			}
			line := ""
			if lines := strings.Split(string(conf), "\n"); te.Line > 0 && te.Line <= len(lines) {
				line = strings.TrimSpace(lines[te.Line-1])
			}
			if len(line) > 160 {
				line = line[:160] + "…"
			}
			b, ok := owners.At(te.Line)
			if !ok || len(b.Ingresses) == 0 {
				t.Errorf("ConfigMap column %d (%s): nginx -t refuses a line of no Ingress: %s\n  line %d: %s", c, sweepColumn(c), te.Message, te.Line, line)
				break
			}
			for _, ref := range b.Ingresses {
				out[ref.Name] = true
				t.Errorf("nginx -t refuses what render accepts: %s (ConfigMap column %d): %s\n  line %d: %s", byName[ref.Name].what, c, te.Message, te.Line, line)
			}
		}
	}
	t.Logf("%d Ingresses, %d ConfigMap columns: %d nginx -t runs in %v", len(ings), columns, runs, time.Since(start).Round(time.Millisecond))
}

// sweepColumn names the ConfigMap values of column c.
func sweepColumn(c int) string {
	keys := make([]string, 0, len(sweepConfigKeys))
	for k := range sweepConfigKeys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b []string
	for _, k := range keys {
		vs := sweepConfigKeys[k]
		v := vs[c%len(vs)]
		if len(v) > 20 {
			v = v[:20] + "…"
		}
		b = append(b, k+"="+v)
	}
	return strings.Join(b, " ")
}

func sweepCut(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// sweepStatusCodes is the custom-http-errors list of every code from min
// to 599 that error_page takes (499 is refused).
func sweepStatusCodes(min int) string {
	codes := make([]string, 0, 600-min)
	for c := min; c <= 599; c++ {
		if c != 499 {
			codes = append(codes, strconv.Itoa(c))
		}
	}
	return strings.Join(codes, ",")
}
