package admission

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-ingress/kubectl-ingress/internal/genmanifests"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// BenchmarkReview10000 measures one whole review (decode, snapshot, the
// Build of the related objects, answer) in a cluster of 10,000 Ingresses
// made by hack/genmanifests: the creation of a copy of an existing Ingress,
// denied for its paths. Target: under 50 ms. "subset" reviews an unchanged
// cluster (the index is kept), "subset-after-a-change" one where an Ingress
// changed since the last review (the Ingress index is made again), and
// "full-build" is the same review with a Build of every object.
func BenchmarkReview10000(b *testing.B) {
	s := generateCluster(b, 10000)
	cand := s.Ingresses[len(s.Ingresses)/2].DeepCopy()
	cand.Name += "-copy"
	cand.CreationTimestamp = metav1.Time{}
	body := reviewOf(b, "bench", admissionv1.Create, ingressGVK, cand)
	v, err := NewValidator(func() (render.Snapshot, error) { return s, nil }, render.DefaultOptions(), false)
	if err != nil {
		b.Fatal(err)
	}
	h := NewHandler(v)
	b.Run("subset", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, quietRequest(http.MethodPost, body))
			if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"allowed":false`)) {
				b.Fatalf("HTTP %d: %s", rec.Code, rec.Body.String())
			}
		}
	})
	// Every review after a change of one Ingress: the Ingress index is
	// made again each time (the Services', EndpointSlices' and Secrets'
	// are kept).
	b.Run("subset-after-a-change", func(b *testing.B) {
		current := s
		v, err := NewValidator(func() (render.Snapshot, error) { return current, nil }, render.DefaultOptions(), false)
		if err != nil {
			b.Fatal(err)
		}
		h := NewHandler(v)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			current.Ingresses = append([]*networkingv1.Ingress(nil), s.Ingresses...)
			changed := *current.Ingresses[i%len(s.Ingresses)]
			current.Ingresses[i%len(s.Ingresses)] = &changed
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, quietRequest(http.MethodPost, body))
			if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"allowed":false`)) {
				b.Fatalf("HTTP %d: %s", rec.Code, rec.Body.String())
			}
		}
	})
	b.Run("full-build", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if ps := candidateProblems(s, cand, render.DefaultOptions(), true, true); len(ps) == 0 {
				b.Fatal("no problem found")
			}
		}
	})
}

// generateCluster makes a cluster of n Ingresses with hack/genmanifests.
func generateCluster(b *testing.B, n int) render.Snapshot {
	b.Helper()
	dir := b.TempDir()
	o := genmanifests.DefaultOptions()
	o.Ingresses = n
	if err := genmanifests.Write(dir, o); err != nil {
		b.Fatalf("genmanifests: %v", err)
	}
	res, err := manifest.Read([]string{dir}, manifest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return res.Snapshot
}
