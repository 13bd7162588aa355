package annotations

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
)

// FastCGI: backend-protocol "FCGI" (backend.go) with fastcgi-index and
// fastcgi-params-configmap, as in ingress-nginx: nginx's fastcgi module
// (built into Debian's nginx) talks to the backend's endpoints through the
// same Lua balancer as proxy_pass. The params ConfigMap ("name" in the
// Ingress namespace or "namespace/name") is found by render and checked by
// ParseFastCGIParams.

// fastCGIVars are the variables fastcgi params may hold: those of added
// headers and the FastCGI ones.
var fastCGIVars = func() varList {
	names := append([]string{
		"document_root", "document_uri", "fastcgi_path_info", "fastcgi_script_name", "https",
		"realpath_root", "remote_user", "request_filename",
	}, headerVars.names...)
	sort.Strings(names)
	return varList{names: names, prefixes: headerVars.prefixes}
}()

// fastCGIAnnotations are the annotations of this family, sorted by name.
var fastCGIAnnotations = []annotationSpec{
	{Name: "fastcgi-index", Kind: kindPath, Description: `With backend-protocol "FCGI": the file name appended to a URI ending in "/" (fastcgi_index), e.g. "index.php".`,
		set: func(s *annotationState, v string) error {
			if err := valueCheckChars(v, ""); err != nil {
				return err
			}
			for i := 0; i < len(v); i++ {
				if !valueIsPathChar(v[i]) || v[i] == '/' {
					return fmt.Errorf("must be a file name (found %q)", v[i])
				}
			}
			s.out.FastCGIIndex = v
			return nil
		}},
	{Name: "fastcgi-params-configmap", Kind: kindConfigMapRef, Description: `With backend-protocol "FCGI": ConfigMap ("name" or "namespace/name") whose data are fastcgi_param names and values (values may use nginx variables such as $document_root, $fastcgi_script_name). A missing or invalid ConfigMap makes the paths answer 503, as in ingress-nginx.`,
		set: annString(valueConfigMapRef, func(s *annotationState) *string { return &s.out.FastCGIParams })},
}

// ParseFastCGIParams checks the data of a fastcgi params ConfigMap and
// returns the params sorted by name.
func ParseFastCGIParams(data map[string]string) ([]model.Header, error) {
	if len(data) > maxHeaders {
		return nil, fmt.Errorf("holds %d params, more than %d", len(data), maxHeaders)
	}
	names := slices.Sorted(maps.Keys(data))
	out := make([]model.Header, 0, len(names))
	for _, k := range names {
		if k == "" || len(k) > 256 {
			return nil, errors.New("holds a param name that is empty or longer than 256 bytes")
		}
		for i := 0; i < len(k); i++ {
			c := k[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
				return nil, fmt.Errorf("key %s must be a param name (letters, digits and _)", ValueQuote(k))
			}
		}
		v := strings.TrimSpace(data[k])
		if len(v) > valueMaxLen {
			return nil, fmt.Errorf("value of %s is longer than %d bytes", k, valueMaxLen)
		}
		for i := 0; i < len(v); i++ {
			if c := v[i]; c < ' ' || c >= 0x7f {
				return nil, fmt.Errorf("value of %s must be visible ASCII and spaces (found %q at byte %d)", k, c, i)
			}
		}
		if err := checkVars(v, fastCGIVars, true); err != nil {
			return nil, fmt.Errorf("value of %s %v", k, err)
		}
		out = append(out, model.Header{Name: k, Value: v, Vars: true})
	}
	return out, nil
}
