package annotations

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// annotationPrefix is the prefix of every annotation read here, as in
// ingress-nginx. Annotations without it are not ours and are ignored.
const annotationPrefix = "nginx.ingress.kubernetes.io/"

// Ingress are the typed settings that the annotations of one
// Ingress ask for. Every field holds a validated value or its default.
type Ingress struct {
	// Location holds the settings of every location of the Ingress.
	Location model.LocationSettings
	// UseRegex makes the paths of the Ingress (and of every Ingress of the
	// same host and namespace; of the same host with
	// --allow-cross-namespace-host-sharing, as in ingress-nginx)
	// case-insensitive regexes.
	UseRegex bool
	// ServerAliases are extra names of the hosts of the Ingress, lower case,
	// sorted and without duplicates.
	ServerAliases []string
	// Backend holds the balancing settings of the Ingress's backends.
	Backend Backend
	// Canary says whether the Ingress is a canary and which requests it takes.
	Canary Canary
	// DefaultBackend is the name of a Service in the Ingress namespace that
	// answers when the backend of a path has no endpoints; "" for none.
	DefaultBackend string
	// SSLPassthrough passes TLS connections for the Ingress's hosts to the
	// backend of "/" unterminated (with --enable-ssl-passthrough).
	SSLPassthrough bool
	// ErrorPages are custom-http-errors and disable-proxy-intercept-errors
	// (errorpages.go).
	ErrorPages ErrorPageAnnotations
	// CustomHeaders (custom-headers) and FastCGIParams
	// (fastcgi-params-configmap) name a ConfigMap ("name" or
	// "namespace/name") that render finds; FastCGIIndex is fastcgi-index.
	CustomHeaders string
	FastCGIParams string
	FastCGIIndex  string
	// FromToWWWRedirect is from-to-www-redirect (wwwredirect.go).
	FromToWWWRedirect bool
	// SSLCiphers and SSLPreferServerCiphers are ssl-ciphers and
	// ssl-prefer-server-ciphers, server settings of the Ingress's hosts.
	SSLCiphers             string
	SSLPreferServerCiphers *bool
	// ConfigurationSnippet and ServerSnippet are the text of
	// configuration-snippet and server-snippet as written ("" for none);
	// render translates them with pkg/snippet (snippets.go).
	ConfigurationSnippet string
	ServerSnippet        string
}

// annotationState is what the setters of the annotation table write to.
// Settings that depend on other annotations are staged here, each family's
// in a struct of its file, and combined by finish.
type annotationState struct {
	out Ingress

	corsState
	redirectState
	accessState
	rateLimitState
	hashByState
	affinityState
	mirrorState
	authBasicState
	authTLSState
	proxySSLState
	authExternalState
}

func newAnnotationState() *annotationState {
	return &annotationState{
		out: Ingress{
			Location: model.LocationSettings{BackendProtocol: defaultBackendProtocol},
			Backend:  Backend{Protocol: defaultBackendProtocol},
		},
		corsState:      newCORSState(),
		redirectState:  newRedirectState(),
		rateLimitState: newRateLimitState(),
		hashByState:    newHashByState(),
		affinityState:  newAffinityState(),
		mirrorState:    newMirrorState(),

		authExternalState: newAuthExternalState(),
	}
}

// Key is the full annotation key of name ("nginx.ingress.kubernetes.io/" + name).
func Key(name string) string { return annotationPrefix + name }

// Field is the Problem field of an annotation.
func Field(name string) string {
	key := annotationPrefix + name
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			key = strconv.Quote(key)
			break
		}
	}
	return "metadata.annotations[" + key + "]"
}

// ParseIngress reads the nginx.ingress.kubernetes.io annotations
// of the Ingress ing. Each invalid value is a Problem and leaves its setting
// at the default; snippets and annotations that this controller does not
// implement are Problems too, so that users see what is ignored.
// Annotations with another prefix are ignored.
func ParseIngress(ing model.ObjectRef, annotations map[string]string) (Ingress, []model.Problem) {
	s := newAnnotationState()
	var problems []model.Problem
	problem := func(name, format string, args ...any) {
		problems = append(problems, model.Problemf(ing, Field(name), format, args...))
	}

	names := make([]string, 0, len(annotations))
	for key := range annotations {
		if name, ok := strings.CutPrefix(key, annotationPrefix); ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)

	// canary decides whether the other canary annotations are read at all.
	if v, ok := annotations[annotationPrefix+"canary"]; ok {
		if err := applyAnnotation(s, lookupAnnotationSpec("canary"), strings.TrimSpace(v)); err != "" {
			problem("canary", "%s", err)
		}
	}

	for _, name := range names {
		raw := annotations[annotationPrefix+name]
		spec := lookupAnnotationSpec(name)
		switch {
		case name == "canary":
			// applied above
		case isTranslatedSnippet(name):
			// As written: trimming would move the lines a Refusal names.
			if err := applyAnnotation(s, spec, raw); err != "" {
				problem(name, "%s", err)
			}
		case spec != nil:
			if spec.CanaryOnly && !s.out.Canary.Enabled {
				continue
			}
			if err := applyAnnotation(s, spec, strings.TrimSpace(raw)); err != "" {
				problem(name, "%s", err)
			}
		case strings.HasSuffix(name, "-snippet"):
			problem(name, "%s", snippetReason(name))
		default:
			u := lookupUnsupportedAnnotation(name)
			if u == nil {
				u = lookupRemovedAnnotation(name)
			}
			switch {
			case u != nil && u.isNoOp(strings.TrimSpace(raw)):
				// ingress-nginx does with this value what we do without it.
			case u != nil:
				reason := "not supported by kubectl-ingress; the annotation is ignored"
				if u.Hint != "" {
					reason += "; " + u.Hint
				}
				problem(name, "%s", reason)
			case inSorted(ingressNginxAnnotations, name):
				problem(name, "not supported by kubectl-ingress; the annotation is ignored")
			default:
				problem(name, "unknown annotation: neither kubectl-ingress nor ingress-nginx has it%s; the annotation is ignored",
					didYouMean(name, knownAnnotationNames))
			}
		}
	}

	problems = append(problems, s.finish(ing)...)
	return s.out, model.SortProblems(problems)
}

// applyAnnotation runs the setter of spec on v and returns the reason of
// the Problem, or "" when the value is valid.
func applyAnnotation(s *annotationState, spec *annotationSpec, v string) string {
	var err error
	if v == "" {
		err = fmt.Errorf("is empty")
	} else {
		err = spec.set(s, v)
	}
	if err == nil {
		return ""
	}
	return fmt.Sprintf("invalid value %s: %v; %s", ValueQuote(v), err, spec.onInvalid())
}

// finish combines the staged settings into s.out and returns the Problems
// that only show when annotations are seen together.
func (s *annotationState) finish(ing model.ObjectRef) []model.Problem {
	var problems []model.Problem
	s.finishCORS()
	problems = append(problems, s.finishRedirect(ing)...)
	problems = append(problems, s.finishAccess(ing)...)
	problems = append(problems, s.finishRateLimit(ing)...)
	s.finishUpstreamHashBy()
	s.finishAffinity()
	s.finishMirror(ing)
	problems = append(problems, s.finishAuthBasic(ing)...)
	problems = append(problems, s.finishAuthTLS(ing)...)
	problems = append(problems, s.finishProxySSL(ing)...)
	problems = append(problems, s.finishCanary(ing)...)
	problems = append(problems, s.finishAuthExternal(ing)...)
	return problems
}
