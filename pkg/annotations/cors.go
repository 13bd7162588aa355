package annotations

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// CORS: enable-cors turns it on, the cors-* annotations shape the answer.
// CORS stays off when cors-allow-origin holds no valid origin.

// Defaults of the CORS annotations, as in ingress-nginx.
const (
	defaultCORSAllowMethods     = "GET, PUT, POST, DELETE, PATCH, OPTIONS"
	defaultCORSAllowHeaders     = "DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization"
	defaultCORSMaxAge           = 1728000
	defaultCORSAllowCredentials = true
)

// corsState stages the CORS annotations until finishCORS.
type corsState struct {
	corsEnabled  bool
	cors         model.CORS
	corsNoOrigin bool // cors-allow-origin was given and no origin in it is valid
}

func newCORSState() corsState {
	return corsState{
		cors: model.CORS{
			AllowOrigins:     []string{"*"},
			AllowMethods:     defaultCORSAllowMethods,
			AllowHeaders:     defaultCORSAllowHeaders,
			AllowCredentials: defaultCORSAllowCredentials,
			MaxAge:           defaultCORSMaxAge,
		},
	}
}

// finishCORS sets the location's CORS when enable-cors is on and an origin
// is left.
func (s *annotationState) finishCORS() {
	if s.corsEnabled && !s.corsNoOrigin {
		c := s.cors
		s.out.Location.CORS = &c
	}
}

// corsAnnotations are the annotations of this family, sorted by name.
var corsAnnotations = []annotationSpec{
	{Name: "cors-allow-credentials", Kind: kindBool, Default: "true", Description: "Send Access-Control-Allow-Credentials when CORS is enabled.",
		set: annBool(func(s *annotationState) *bool { return &s.cors.AllowCredentials })},
	{Name: "cors-allow-headers", Kind: kindTokenList, Default: defaultCORSAllowHeaders, Description: "Access-Control-Allow-Headers when CORS is enabled.",
		set: annCORSList(false, func(s *annotationState) *string { return &s.cors.AllowHeaders })},
	{Name: "cors-allow-methods", Kind: kindTokenList, Default: defaultCORSAllowMethods, Description: "Access-Control-Allow-Methods when CORS is enabled.",
		set: annCORSList(false, func(s *annotationState) *string { return &s.cors.AllowMethods })},
	{Name: "cors-allow-origin", Kind: kindOriginList, Default: "*", Description: `Origins allowed when CORS is enabled: "*" or scheme://host[:port] (any scheme, e.g. tauri://localhost), host may start with "*." for exactly one label.`,
		OnInvalid: "invalid entries are skipped; if none is left, CORS stays off",
		set:       annCORSOrigins},
	{Name: "cors-expose-headers", Kind: kindTokenList, Description: `Access-Control-Expose-Headers when CORS is enabled ("*" allowed).`,
		set: annCORSList(true, func(s *annotationState) *string { return &s.cors.ExposeHeaders })},
	{Name: "cors-max-age", Kind: kindSeconds, Default: "1728000", Description: "How long browsers may cache a CORS preflight answer.",
		set: annInt(0, MaxInt32, func(s *annotationState) *int { return &s.cors.MaxAge })},
	{Name: "enable-cors", Kind: kindBool, Default: "false", Description: "Answer CORS preflight requests and add the CORS headers (see cors-*).",
		set: annBool(func(s *annotationState) *bool { return &s.corsEnabled })},
}

func annCORSOrigins(s *annotationState, v string) error {
	var origins, bad []string
	seen := map[string]bool{}
	for _, e := range valueList(v) {
		o, err := valueOrigin(e)
		if err != nil {
			bad = append(bad, ValueQuote(e))
			continue
		}
		if o == "*" {
			// "*" allows every origin; the others add nothing.
			origins, seen = []string{"*"}, map[string]bool{"*": true}
			continue
		}
		if !seen[o] && !seen["*"] {
			seen[o] = true
			origins = append(origins, o)
		}
	}
	s.cors.AllowOrigins = origins
	s.corsNoOrigin = len(origins) == 0
	if len(bad) > 0 {
		return fmt.Errorf(`entries %s are not "*" or scheme://host[:port] (e.g. "https://example.com", "https://*.example.com:8443", "tauri://localhost")`, strings.Join(bad, ", "))
	}
	if len(origins) == 0 {
		return errors.New("holds no origin")
	}
	return nil
}

// annCORSList checks a list of tokens separated by commas and/or white
// space (as ingress-nginx's CORS regexes allow) and keeps it as written,
// as ingress-nginx sends it ("DNT, User-Agent" and "DNT,User-Agent" both
// reach the client unchanged); only runs of white space become one space,
// so no tab or line break reaches a header. With star, "*" is a valid
// entry.
func annCORSList(star bool, field func(*annotationState) *string) func(*annotationState, string) error {
	return func(s *annotationState, v string) error {
		list := valueWords(v)
		if len(list) == 0 {
			return errors.New("holds no entry")
		}
		for _, e := range list {
			if star && e == "*" {
				continue
			}
			if _, err := valueToken(e); err != nil {
				return fmt.Errorf("entry %s %v", ValueQuote(e), err)
			}
		}
		// Tokens, commas and spaces only: the entries are tokens and
		// valueWords splits on nothing else.
		kept := strings.Join(strings.Fields(v), " ")
		if len(kept) > valueMaxLen {
			// One nginx parameter: nginx refuses 4096 bytes.
			return fmt.Errorf("is longer than %d bytes", valueMaxLen)
		}
		*field(s) = kept
		return nil
	}
}
