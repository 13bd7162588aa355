package annotations

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// Basic authentication: auth-type basic with the users of a Secret
// (auth-secret, auth-secret-type) and a realm (auth-realm). render reads
// the Secret and writes the htpasswd file (model.BasicAuth.File).
//
// Fail closed, as ingress-nginx denies the location: an Ingress that asks
// for authentication nginx cannot give (auth-type digest, an invalid
// auth-type, no auth-secret) answers 503 on its paths instead of serving
// them without authentication.

// authFailClosed is what happens to the paths of an Ingress whose
// authentication cannot be set up.
const authFailClosed = "every request to the Ingress's paths answers 503 until it is fixed (fail closed, as in ingress-nginx)"

// authBasicState stages the basic authentication annotations until
// finishAuthBasic.
type authBasicState struct {
	authType      string // "basic" or "digest" when valid
	authTypeGiven bool
	secret        *model.ObjectRef // nil: absent or invalid
	secretGiven   bool
	secretType    string
	realm         string
	realmGiven    bool
}

// deny makes the location fail closed with 503, keeping the first reason.
func (s *annotationState) deny(reason string) {
	if s.out.Location.Denied == "" {
		s.out.Location.Denied = reason
	}
}

// authBasicAnnotations are the annotations of this family, sorted by name.
var authBasicAnnotations = []annotationSpec{
	{Name: "auth-realm", Kind: kindHeaderValue, Description: "Realm of basic authentication, sent in WWW-Authenticate.",
		set: func(s *annotationState, v string) error {
			s.realmGiven = true
			r, err := valueRealm(v)
			if err == nil {
				s.realm = r
			}
			return err
		}},
	{Name: "auth-secret", Kind: kindSecretRef, Description: "Secret holding the users of basic authentication (see auth-secret-type); another namespace only with the ConfigMap's allow-cross-namespace-resources.",
		OnInvalid: authFailClosed,
		set: func(s *annotationState, v string) error {
			s.secretGiven = true
			ref, err := valueSecretRef(v)
			if err == nil {
				s.secret = &ref
			}
			return err
		}},
	{Name: "auth-secret-type", Kind: kindEnum, Default: "auth-file", Description: `How the Secret holds the users: "auth-file" (key "auth" holds htpasswd lines) or "auth-map" (each key a user, its value the password hash).`,
		set: annOneOf(false, func(s *annotationState) *string { return &s.secretType }, "auth-file", "auth-map")},
	{Name: "auth-type", Kind: kindEnum, Description: `"basic": ask for a user and password (HTTP basic authentication) checked against auth-secret. "digest" is not supported (Debian's nginx has no digest module).`,
		OnInvalid: authFailClosed,
		set: func(s *annotationState, v string) error {
			s.authTypeGiven = true
			t, err := valueOneOf(v, false, "basic", "digest")
			if err == nil {
				s.authType = t
			}
			return err
		}},
}

// finishAuthBasic sets the location's basic authentication, or denies it
// when it was asked for and cannot be given.
func (s *annotationState) finishAuthBasic(ing model.ObjectRef) []model.Problem {
	var problems []model.Problem
	st := &s.authBasicState
	if !st.authTypeGiven {
		for _, given := range []struct {
			name string
			ok   bool
		}{{"auth-realm", st.realmGiven}, {"auth-secret", st.secretGiven}, {"auth-secret-type", st.secretType == "auth-map"}} {
			if given.ok {
				problems = append(problems, model.Problemf(ing, Field(given.name), "ignored: auth-type is not set, so no basic authentication is asked"))
			}
		}
		return problems
	}
	switch st.authType {
	case "":
		s.deny("auth-type is invalid")
		return problems
	case "digest":
		problems = append(problems, model.Problemf(ing, Field("auth-type"), "digest authentication is not supported: Debian's nginx has no digest authentication module (auth_digest); %s", authFailClosed))
		s.deny("auth-type digest is not supported")
		return problems
	}
	if st.secret == nil {
		if !st.secretGiven {
			problems = append(problems, model.Problemf(ing, Field("auth-secret"), "is required with auth-type basic; %s", authFailClosed))
		}
		s.deny("auth-type basic without a valid auth-secret")
		return problems
	}
	s.out.Location.BasicAuth = &model.BasicAuth{
		Realm:  st.realm,
		Secret: *st.secret,
		Map:    st.secretType == "auth-map",
	}
	return problems
}

// valueRealm checks auth-realm: visible ASCII and spaces, without the
// quote and backslash that would break WWW-Authenticate's quoted string
// (nginx copies the realm into it as it is) and without '$', which
// auth_basic would read as a variable, and not "off", which nginx's
// auth_basic reads as "no authentication" even quoted (checked against
// nginx 1.22: `auth_basic "off"` serves without credentials), so the
// annotation meant to protect a path would open it.
func valueRealm(v string) (string, error) {
	if len(v) > 256 {
		return "", errors.New("is longer than 256 bytes")
	}
	if v == "off" {
		return "", errors.New(`must not be "off": nginx would turn authentication off`)
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c < ' ' || c >= 0x7f:
			return "", fmt.Errorf("must be visible ASCII and spaces (found %q)", c)
		case strings.IndexByte("\"\\$", c) >= 0:
			return "", fmt.Errorf("must not contain \" \\ or $ (found %q)", c)
		}
	}
	return v, nil
}
