package admission

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

func newTestHandler(t *testing.T, s render.Snapshot, strict bool) *Handler {
	t.Helper()
	v, err := NewValidator(func() (render.Snapshot, error) { return s, nil }, render.DefaultOptions(), strict)
	if err != nil {
		t.Fatal(err)
	}
	return NewHandler(v)
}

// post sends body to h and returns the status code, the decoded review (on
// 200) and the raw body.
func post(t *testing.T, h http.Handler, body []byte) (int, *admissionv1.AdmissionReview, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, quietRequest(http.MethodPost, body))
	if rec.Code != http.StatusOK {
		return rec.Code, nil, rec.Body.String()
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("response is not JSON: %v\n%s", err, rec.Body.String())
	}
	return rec.Code, &out, rec.Body.String()
}

// quietRequest is a request to Path whose context logs nothing.
func quietRequest(method string, body []byte) *http.Request {
	r := httptest.NewRequest(method, Path, bytes.NewReader(body))
	return r.WithContext(klog.NewContext(r.Context(), logr.Discard()))
}

func TestReview(t *testing.T) {
	service := metav1.GroupVersionKind{Version: "v1", Kind: "Service"}
	cases := []struct {
		name    string
		strict  bool
		op      admissionv1.Operation
		kind    metav1.GroupVersionKind
		obj     any
		allowed bool
		// want are substrings of the denial message (or, allowed, of the
		// warnings joined).
		want []string
	}{
		{name: "another path on the same host is admitted", op: admissionv1.Create,
			obj: newIngress("new", "a.example.com", "/other", "web"), allowed: true},
		{name: "host and path of an older Ingress are denied", op: admissionv1.Create,
			obj: newIngress("new", "a.example.com", "/", "web"), allowed: false,
			want: []string{`ingress default/new: spec.rules[0].http.paths[0]: host "a.example.com" path "/" (Prefix) is already served by ingress default/old (older)`}},
		{name: "a create is the newest whatever its creationTimestamp", op: admissionv1.Create,
			obj: newIngress("aaa", "a.example.com", "/", "web", created(t0.Add(-time.Hour))), allowed: false,
			want: []string{"is already served by ingress default/old (older)"}},
		{name: "an update of the owner itself is admitted", op: admissionv1.Update,
			obj: newIngress("old", "a.example.com", "/", "web", created(t0), annotation("proxy-body-size", "8m")), allowed: true},
		{name: "a bad annotation value is denied", op: admissionv1.Create,
			obj: newIngress("new", "b.example.com", "/", "web", annotation("proxy-body-size", "lots")), allowed: false,
			want: []string{`ingress default/new: metadata.annotations[nginx.ingress.kubernetes.io/proxy-body-size]: invalid value "lots"`}},
		{name: "a snippet with a directive outside the allowlist is denied", op: admissionv1.Update,
			obj: newIngress("new", "b.example.com", "/", "web", annotation("configuration-snippet", "return 200;\ninclude /etc/passwd;")), allowed: false,
			want: []string{`metadata.annotations[nginx.ingress.kubernetes.io/configuration-snippet]: line 2: directive "include": not translated`}},
		{name: "a snippet that translates is allowed", op: admissionv1.Update,
			obj: newIngress("new", "b.example.com", "/", "web", annotation("configuration-snippet", "return 200;")), allowed: true},
		{name: "another class is allowed untouched", op: admissionv1.Create,
			obj: newIngress("new", "a.example.com", "/", "missing", className("other"), annotation("configuration-snippet", "x")), allowed: true},
		{name: "an unknown service is a warning without strict", op: admissionv1.Create,
			obj: newIngress("new", "b.example.com", "/", "missing"), allowed: true,
			want: []string{`service "default/missing" not found`}},
		{name: "an unknown service is denied with strict", strict: true, op: admissionv1.Create,
			obj: newIngress("new", "b.example.com", "/", "missing"), allowed: false,
			want: []string{`ingress default/new: spec.rules[0].http.paths[0].backend.service: service "default/missing" not found`}},
		{name: "a TLS Secret yet to come is a warning, even with strict", strict: true, op: admissionv1.Create,
			obj: newIngress("new", "b.example.com", "/", "web", tlsSecret("b.example.com", "b-tls")), allowed: true,
			want: []string{`spec.tls[0].secretName: secret "default/b-tls" not found`}},
		{name: "delete is allowed", op: admissionv1.Delete,
			obj: newIngress("new", "a.example.com", "/", "web", annotation("configuration-snippet", "x")), allowed: true},
		{name: "other kinds are allowed", op: admissionv1.Create, kind: service,
			obj: map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "x"}}, allowed: true},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kind := c.kind
			if kind.Kind == "" {
				kind = ingressGVK
			}
			uid := "uid-" + string(rune('a'+i))
			code, out, raw := post(t, newTestHandler(t, fixture(), c.strict), reviewOf(t, uid, c.op, kind, c.obj))
			if code != http.StatusOK {
				t.Fatalf("HTTP %d: %s", code, raw)
			}
			if out.APIVersion != "admission.k8s.io/v1" || out.Kind != "AdmissionReview" {
				t.Errorf("answered apiVersion %q kind %q, want admission.k8s.io/v1 AdmissionReview", out.APIVersion, out.Kind)
			}
			resp := out.Response
			if resp == nil || string(resp.UID) != uid {
				t.Fatalf("response %+v does not carry uid %q", resp, uid)
			}
			if resp.Allowed != c.allowed {
				t.Fatalf("allowed = %v, want %v: %s", resp.Allowed, c.allowed, raw)
			}
			text := strings.Join(resp.Warnings, "\n")
			if !c.allowed {
				if resp.Result == nil || resp.Result.Code != http.StatusBadRequest || resp.Result.Reason != metav1.StatusReasonBadRequest {
					t.Fatalf("denial status %+v, want code 400 reason BadRequest", resp.Result)
				}
				text = resp.Result.Message
				if len(resp.Result.Details.Causes) == 0 {
					t.Errorf("denial has no causes: %+v", resp.Result.Details)
				}
			} else if len(c.want) == 0 && len(resp.Warnings) > 0 {
				t.Errorf("unexpected warnings: %q", resp.Warnings)
			}
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("%q is not in:\n%s", w, text)
				}
			}
		})
	}
}

func TestReviewBadRequests(t *testing.T) {
	h := newTestHandler(t, fixture(), false)
	goodIngress := newIngress("new", "b.example.com", "/", "web")
	wrongVersion := bytes.Replace(reviewOf(t, "u", admissionv1.Create, ingressGVK, goodIngress), []byte(`"admission.k8s.io/v1"`), []byte(`"admission.k8s.io/v1beta1"`), 1)
	badObject := reviewOf(t, "u", admissionv1.Create, ingressGVK, map[string]any{"spec": "not an object"})
	cases := []struct {
		name, body, want string
	}{
		{"not JSON", "<xml/>", "is not an AdmissionReview in JSON"},
		{"empty body", "", "is not an AdmissionReview in JSON"},
		{"v1beta1", string(wrongVersion), `got apiVersion "admission.k8s.io/v1beta1"`},
		{"no request", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, "has no request"},
		{"no uid", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"operation":"CREATE"}}`, "has no uid"},
		{"object is not an Ingress", string(badObject), "request.object is not a networking.k8s.io/v1 Ingress"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, raw := post(t, h, []byte(c.body))
			if code != http.StatusBadRequest {
				t.Fatalf("HTTP %d, want 400: %s", code, raw)
			}
			if !strings.Contains(raw, c.want) {
				t.Errorf("%q is not in the answer %q", c.want, raw)
			}
		})
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, quietRequest(http.MethodGet, nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET: HTTP %d, want 405", rec.Code)
	}
}

func TestReviewSnapshotError(t *testing.T) {
	v, err := NewValidator(func() (render.Snapshot, error) { return render.Snapshot{}, errors.New("cache gone") }, render.DefaultOptions(), false)
	if err != nil {
		t.Fatal(err)
	}
	code, out, raw := post(t, NewHandler(v), reviewOf(t, "u1", admissionv1.Create, ingressGVK, newIngress("new", "b.example.com", "/", "web")))
	if code != http.StatusOK || out.Response.Allowed || out.Response.Result.Code != http.StatusInternalServerError ||
		!strings.Contains(out.Response.Result.Message, "cache gone") || out.Response.UID != "u1" {
		t.Fatalf("HTTP %d: %s; want a denial with code 500 naming the error", code, raw)
	}
}

// TestReviewMessageBounded: many Problems make a message of at most
// maxMessage bytes that says how many were left out.
func TestReviewMessageBounded(t *testing.T) {
	long := strings.Repeat("x", 300)
	ing := newIngress("new", "b.example.com", "/", "web")
	for _, k := range []string{"proxy-body-size", "proxy-read-timeout", "proxy-send-timeout", "proxy-connect-timeout", "ssl-redirect",
		"force-ssl-redirect", "use-regex", "enable-cors", "limit-rps", "limit-connections", "proxy-buffering", "proxy-buffer-size",
		"client-body-buffer-size", "proxy-next-upstream-tries", "canary-weight", "server-snippet", "configuration-snippet"} {
		ing.Annotations["nginx.ingress.kubernetes.io/"+k] = long
	}
	code, out, raw := post(t, newTestHandler(t, fixture(), false), reviewOf(t, "u", admissionv1.Create, ingressGVK, ing))
	if code != http.StatusOK || out.Response.Allowed {
		t.Fatalf("HTTP %d, want a denial: %s", code, raw)
	}
	msg := out.Response.Result.Message
	if len(msg) > maxMessage {
		t.Errorf("message of %d bytes, want at most %d", len(msg), maxMessage)
	}
	if !strings.Contains(msg, "more") || !strings.HasPrefix(msg, "1") {
		t.Errorf("message does not count the problems left out: %s", msg)
	}
	if n := len(out.Response.Result.Details.Causes); n > maxListed {
		t.Errorf("%d causes, want at most %d", n, maxListed)
	}
}

// TestReviewUpdateOfAnOwner: an older Ingress may change what it already
// owned, even while a younger one waits for the same path, but an update
// that takes a path another Ingress serves is denied (Build would give it
// to the older one: a takeover of someone else's traffic).
func TestReviewUpdateOfAnOwner(t *testing.T) {
	s := fixture()
	s.Ingresses = append(s.Ingresses,
		newIngress("young", "a.example.com", "/", "web", created(t0.Add(time.Hour))),
		newIngress("b-owner", "b.example.com", "/", "web", created(t0.Add(time.Hour))))
	h := newTestHandler(t, s, false)

	edited := newIngress("old", "a.example.com", "/", "web", created(t0), annotation("proxy-body-size", "8m"))
	_, out, raw := post(t, h, reviewOf(t, "u1", admissionv1.Update, ingressGVK, edited))
	if out == nil || !out.Response.Allowed {
		t.Errorf("an edit of what old already owned was denied: %s", raw)
	}
	grab := newIngress("old", "a.example.com", "/", "web", created(t0))
	grab.Spec.Rules = append(grab.Spec.Rules, newIngress("", "b.example.com", "/", "web").Spec.Rules...)
	_, out, raw = post(t, h, reviewOf(t, "u2", admissionv1.Update, ingressGVK, grab))
	want := `ingress default/b-owner: spec.rules[0].http.paths[0]: host "b.example.com" path "/" (Prefix) is already served by ingress default/old (older)`
	if out == nil || out.Response.Allowed || !strings.Contains(out.Response.Result.Message, want) {
		t.Errorf("taking b.example.com / from b-owner: %s; want a denial with %q", raw, want)
	}
	if out != nil && out.Response.Result != nil && strings.Contains(out.Response.Result.Message, "default/young") {
		t.Errorf("the denial names young, whose path old already had: %s", out.Response.Result.Message)
	}
}
