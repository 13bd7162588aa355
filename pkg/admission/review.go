package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Path is where ingress-nginx serves its webhook for networking.k8s.io/v1
// Ingresses (clientConfig.service.path of its ValidatingWebhookConfiguration).
// The Handler answers on any path, so older configurations keep working.
const Path = "/networking/v1/ingresses"

// Bounds of a request and of what a response says.
const (
	// maxBody is more than the largest object the API server stores
	// (about 1.5 MB) inside an AdmissionReview, which also holds the old one.
	maxBody = 8 << 20
	// maxListed problems are listed in a denial's message and causes.
	maxListed = 10
	// maxMessage bytes of a denial's message.
	maxMessage = 4096
	// maxWarning bytes of one warning (the API server truncates longer ones).
	maxWarning = 256
)

var ingressGVK = metav1.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}

// Handler answers AdmissionReviews of Ingresses.
type Handler struct {
	v *Validator
}

// NewHandler returns the webhook's HTTP handler.
func NewHandler(v *Validator) *Handler { return &Handler{v: v} }

// badRequest is an error in what the client sent: HTTP 400.
type badRequest struct{ msg string }

func (e badRequest) Error() string { return e.msg }

func badRequestf(format string, args ...any) error {
	return badRequest{fmt.Sprintf(format, args...)}
}

// ServeHTTP decodes the AdmissionReview, judges its Ingress and answers
// with an AdmissionReview carrying the same UID.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	log := klog.FromContext(r.Context())
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "admission webhook: only POST of an AdmissionReview (admission.k8s.io/v1)", http.StatusMethodNotAllowed)
		return
	}
	start := time.Now()
	review, err := decodeReview(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		http.Error(w, "admission webhook: "+err.Error(), http.StatusBadRequest)
		return
	}
	req := review.Request
	resp, err := h.ReviewContext(r.Context(), req)
	if err != nil {
		var bad badRequest
		if errors.As(err, &bad) {
			http.Error(w, "admission webhook: "+err.Error(), http.StatusBadRequest)
			return
		}
		log.Error(err, "Admission review failed", "uid", req.UID, "ingress", req.Namespace+"/"+req.Name)
		resp = &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
			Reason: metav1.StatusReasonInternalError, Message: err.Error(),
		}}
	}
	resp.UID = req.UID
	out := admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp}
	body, err := json.Marshal(out)
	if err != nil {
		http.Error(w, "admission webhook: encoding the response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
	log.V(2).Info("Admission review", "uid", req.UID, "operation", req.Operation, "ingress", req.Namespace+"/"+req.Name,
		"allowed", resp.Allowed, "warnings", len(resp.Warnings), "duration", time.Since(start))
	if !resp.Allowed {
		log.Info("Admission denied", "ingress", req.Namespace+"/"+req.Name, "operation", req.Operation, "message", resp.Result.Message)
	}
}

// decodeReview reads an AdmissionReview of admission.k8s.io/v1 that holds
// a request with a UID.
func decodeReview(body io.Reader) (*admissionv1.AdmissionReview, error) {
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, fmt.Errorf("reading the request body: %w", err)
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(raw, &review); err != nil {
		return nil, fmt.Errorf("the request body is not an AdmissionReview in JSON: %w", err)
	}
	if review.APIVersion != admissionv1.SchemeGroupVersion.String() || review.Kind != "AdmissionReview" {
		return nil, fmt.Errorf("want apiVersion %q and kind \"AdmissionReview\", got apiVersion %q and kind %q (set admissionReviewVersions to [v1])",
			admissionv1.SchemeGroupVersion.String(), review.APIVersion, review.Kind)
	}
	if review.Request == nil {
		return nil, errors.New("the AdmissionReview has no request")
	}
	if review.Request.UID == "" {
		return nil, errors.New("the AdmissionReview's request has no uid")
	}
	return &review, nil
}

// Review judges one request. CREATE and UPDATE of a networking.k8s.io/v1
// Ingress are built; everything else (DELETE, CONNECT, other kinds) is
// allowed untouched. An object that does not decode is a badRequest.
func (h *Handler) Review(req *admissionv1.AdmissionRequest) (*admissionv1.AdmissionResponse, error) {
	return h.ReviewContext(context.Background(), req)
}

// ReviewContext is Review; ctx bounds the review's nginx -t (see
// NginxCheck).
func (h *Handler) ReviewContext(ctx context.Context, req *admissionv1.AdmissionRequest) (*admissionv1.AdmissionResponse, error) {
	allowed := &admissionv1.AdmissionResponse{Allowed: true}
	if req.Kind != ingressGVK {
		return allowed, nil
	}
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return allowed, nil
	}
	if len(req.Object.Raw) == 0 {
		return nil, badRequestf("request.object is empty for %s of ingress %s/%s", req.Operation, req.Namespace, req.Name)
	}
	var ing networkingv1.Ingress
	if err := json.Unmarshal(req.Object.Raw, &ing); err != nil {
		return nil, badRequestf("request.object is not a networking.k8s.io/v1 Ingress: %v", err)
	}
	if ing.Namespace == "" {
		ing.Namespace = req.Namespace
	}
	if ing.Name == "" {
		ing.Name = req.Name
	}
	verdict, err := h.v.ValidateContext(ctx, &ing, req.Operation == admissionv1.Create)
	if err != nil {
		return nil, err
	}
	resp := &admissionv1.AdmissionResponse{Allowed: len(verdict.Denials) == 0, Warnings: warnings(verdict.Warnings)}
	if !resp.Allowed {
		resp.Result = denial(&ing, verdict.Denials)
	}
	return resp, nil
}

// denial is the Status of a refused Ingress: its Problems, at most
// maxListed of them and maxMessage bytes.
func denial(ing *networkingv1.Ingress, ps []model.Problem) *metav1.Status {
	var msg strings.Builder
	fmt.Fprintf(&msg, "%d problem(s): ", len(ps))
	details := &metav1.StatusDetails{Name: ing.Name, Group: ingressGVK.Group, Kind: "ingresses"}
	listed := 0
	for i, p := range ps {
		s := p.String()
		if i >= maxListed || msg.Len()+len(s)+2 > maxMessage-64 {
			break
		}
		if i > 0 {
			msg.WriteString("; ")
		}
		msg.WriteString(s)
		details.Causes = append(details.Causes, metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: p.Field, Message: p.Reason})
		listed++
	}
	if listed == 0 { // the first alone is too long
		msg.WriteString(truncate(ps[0].String(), maxMessage-64))
		listed = 1
	}
	if more := len(ps) - listed; more > 0 {
		fmt.Fprintf(&msg, "; and %d more", more)
	}
	return &metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusBadRequest,
		Reason:  metav1.StatusReasonBadRequest,
		Message: msg.String(),
		Details: details,
	}
}

// warnings gives the Problems that do not deny, as the API server shows
// them to the client ("Warning: ..."), bounded.
func warnings(ps []model.Problem) []string {
	var out []string
	for i, p := range ps {
		if i == maxListed {
			out = append(out, fmt.Sprintf("and %d more problem(s)", len(ps)-i))
			break
		}
		out = append(out, truncate(p.String(), maxWarning))
	}
	return out
}

// truncate cuts s to at most n bytes, on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("...")
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}
