package nginxconf

import (
	"strings"
	"testing"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/annotations"
)

// TestServerNamesBucketSize pins nginx's own formula (16 + align8(n + 2)
// on 64-bit): the bucket of a 46-byte name is 64, of a 47-byte one 128
// (nginx -t failed on statistics.api.demo.fellesdatakatalog.digdir.no with
// 64), of a 111-byte one 256 (it failed with 128).
func TestServerNamesBucketSize(t *testing.T) {
	for n, want := range map[int]int{0: 64, 1: 64, 46: 64, 47: 128, 48: 128, 110: 128, 111: 256, 112: 256, 238: 256, 239: 512, 253: 512} {
		if got := serverNamesBucketSize(n); got != want {
			t.Errorf("serverNamesBucketSize(%d) = %d, want %d", n, got, want)
		}
	}
	if n := len("statistics.api.demo.fellesdatakatalog.digdir.no"); serverNamesBucketSize(n) < 16+(n+2+7)/8*8 {
		t.Errorf("bucket of the 47-byte host too small")
	}
}

// TestOriginsRegexesSplit checks that a long origin list is spread over
// regexes that each stay below regexMaxParam once quoted, keeping every
// origin, and that a short list stays one regex.
func TestOriginsRegexesSplit(t *testing.T) {
	if got := originsRegexes([]string{"https://a.example.com", "https://*.b.example.com"}); len(got) != 1 {
		t.Fatalf("two origins gave %d regexes", len(got))
	}
	var origins []string
	for i := 0; i < 300; i++ {
		origins = append(origins, "https://*.tenant"+itoa(i)+".example.com")
	}
	res := originsRegexes(origins)
	if len(res) < 2 {
		t.Fatalf("300 wildcard origins in %d regex", len(res))
	}
	seen := 0
	for _, re := range res {
		q, err := quote(re)
		if err != nil {
			t.Fatal(err)
		}
		if len(q) > regexMaxParam {
			t.Errorf("a regex of %d bytes quoted, want at most %d", len(q), regexMaxParam)
		}
		if err := annotations.CheckRegex(re); err != nil {
			t.Errorf("origins regex refused: %v", err)
		}
		seen += strings.Count(re, "tenant")
	}
	if seen != len(origins) {
		t.Errorf("%d origins in the regexes, want %d", seen, len(origins))
	}
}
