package annotations

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Custom error pages: custom-http-errors (annotation and ConfigMap key)
// lists the status codes whose answers the default backend renders, and
// disable-proxy-intercept-errors keeps a backend's own answers with those
// codes (only nginx's own errors then get the pages). Which default
// backend renders them (the default-backend annotation's Service, else
// the controller's) is render's to decide (pkg/render/build_errorpages.go).

// ErrorPageAnnotations are the error page annotations of an Ingress.
type ErrorPageAnnotations struct {
	// Codes are custom-http-errors: sorted, unique, 400 to 599; nil when
	// the annotation is absent or invalid (the ConfigMap's list applies).
	Codes []int
	// DisableIntercept is disable-proxy-intercept-errors.
	DisableIntercept bool
}

// errorPageAnnotations are the annotations of this family, sorted by name.
var errorPageAnnotations = []annotationSpec{
	{Name: "custom-http-errors", Kind: kindStatusCodes, Default: "ConfigMap custom-http-errors",
		Description: "Status codes (400 to 599 but 499, comma separated) whose answers the default backend renders: the default-backend annotation's Service, else the controller's default backend (which answers 404), told X-Code, X-Format, X-Original-URI, X-Namespace, X-Ingress-Name, X-Service-Name, X-Service-Port and X-Request-ID; the client gets the default backend's answer.",
		set: func(s *annotationState, v string) error {
			codes, err := valueStatusCodes(v, 400)
			if err == nil {
				s.out.ErrorPages.Codes = codes
			}
			return err
		}},
	{Name: "disable-proxy-intercept-errors", Kind: kindBool, Default: "false",
		Description: "Pass the backend's own answers with a custom-http-errors code as they are; nginx's own errors (502, 503, 504) still get the pages.",
		set:         annBool(func(s *annotationState) *bool { return &s.out.ErrorPages.DisableIntercept })},
}

// errorPageConfigKeys are the ConfigMap keys of this family, sorted by key.
var errorPageConfigKeys = []configKeySpec{
	{Key: "custom-http-errors", Kind: kindStatusCodes, NoDefault: true,
		Description: "Status codes (300 to 599 but 499, comma separated) whose answers the default backend renders in every location without the annotation of the same name (none by default).",
		set: func(g *model.Global, v string) error {
			codes, err := valueStatusCodes(v, 300)
			if err == nil {
				g.CustomHTTPErrors = codes
			}
			return err
		}},
}

// kindStatusCodes is the kind of custom-http-errors.
const kindStatusCodes valueKind = "comma separated HTTP status codes"

// maxStatusCodes bounds a list of codes: there are 300 codes from 300 to
// 599, each at most once.
const maxStatusCodes = 300

// valueStatusCodes parses a comma separated list of status codes from min
// to 599 (three digits each, blanks around an entry allowed), as nginx's
// error_page takes them, into a sorted list without duplicates.
// ingress-nginx's annotation takes 400 to 599, its ConfigMap 300 to 599;
// both take 499, which fails its nginx -t: it is refused here.
func valueStatusCodes(v string, min int) ([]int, error) {
	entries := strings.Split(v, ",")
	if len(entries) > maxStatusCodes {
		return nil, fmt.Errorf("must hold at most %d codes", maxStatusCodes)
	}
	seen := map[int]bool{}
	var codes []int
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			return nil, errors.New("must be status codes separated by commas, without an empty entry")
		}
		n, err := strconv.Atoi(e)
		if err != nil || len(e) != 3 || n < min || n > 599 {
			return nil, fmt.Errorf("entry %s must be a status code from %d to 599", ValueQuote(e), min)
		}
		if n == 499 {
			// nginx's own code of a client that closed the connection:
			// error_page refuses it ("invalid value", nginx -t fails).
			return nil, errors.New("must not hold 499, nginx's code of a client that closed the connection, which error_page refuses")
		}
		if !seen[n] {
			seen[n] = true
			codes = append(codes, n)
		}
	}
	sort.Ints(codes)
	return codes, nil
}
