package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/yaml"
)

// decoder turns documents into typed objects of the kinds that render
// reads. It is safe for concurrent use.
//
// Decoding is apimachinery's JSON serializer in strict mode, the decoder
// behind kubectl's and the API server's strict field validation: field
// names are case-sensitive, a field of the wrong type is an error, and so
// are unknown and duplicate fields. Strictness applies to our kinds only;
// documents of other kinds are counted, never decoded, as kubectl would
// leave them to their own schema. YAML goes through sigs.k8s.io/yaml's
// YAMLToJSONStrict (which rejects duplicate keys) first; a document that is
// already JSON (hack/genmanifests writes JSON behind "---") skips that
// conversion, which is most of the cost of reading YAML.
type decoder struct {
	serializer *kjson.Serializer
}

func newDecoder() *decoder {
	s := runtime.NewScheme()
	s.AddKnownTypes(networkingv1.SchemeGroupVersion, &networkingv1.Ingress{}, &networkingv1.IngressClass{})
	s.AddKnownTypes(corev1.SchemeGroupVersion, &corev1.Service{}, &corev1.Secret{}, &corev1.ConfigMap{})
	s.AddKnownTypes(discoveryv1.SchemeGroupVersion, &discoveryv1.EndpointSlice{})
	return &decoder{serializer: kjson.NewSerializerWithOptions(typeMetaFinder{}, s, s, kjson.SerializerOptions{Strict: true})}
}

// decoded is what one document holds: objects of our kinds, in document
// order, and the "apiVersion/kind" of every other object.
type decoded struct {
	objects []decodedObject
	skipped []string
	// unread are the Ingresses of API versions render does not read
	// (extensions/v1beta1, networking.k8s.io/v1beta1): also in skipped,
	// and named here so that render can report each.
	unread []unreadIngress
	err    error
}

// unreadIngress is an Ingress of an older API version, by name.
type unreadIngress struct {
	apiVersion, namespace, name string
	origin                      origin
}

type decodedObject struct {
	origin origin
	obj    runtime.Object
}

// decode reads one document. An empty document gives nothing.
//
// A document that starts with "{" is first decoded as JSON without a
// separate validation pass (the strict decoder validates what it decodes);
// only when that fails and the document is not valid JSON is it read as
// YAML, whose flow style also starts with "{".
func (d *decoder) decode(doc document) decoded {
	if doc.isJSON {
		return d.decodeJSON(doc.origin, doc.data, true)
	}
	if !hasContent(doc.data) {
		return decoded{}
	}
	trimmed := bytes.TrimLeft(doc.data, " \t\r\n")
	if trimmed[0] == '{' {
		out := d.decodeJSON(doc.origin, trimmed, false)
		if out.err == nil || json.Valid(trimmed) {
			return out
		}
		if strings.HasSuffix(doc.file, ".json") {
			return decoded{err: jsonError(doc, trimmed)}
		}
	}
	data, err := yaml.YAMLToJSONStrict(doc.data)
	if err != nil {
		return decoded{err: yamlError(doc, err)}
	}
	return d.decodeJSON(doc.origin, data, true)
}

// decodeJSON decodes a JSON document. valid says that data is known to be
// valid JSON; when it is not known, an object that is not decoded (of a kind
// we skip) is validated here, so that a malformed document is an error
// whatever its kind.
func (d *decoder) decodeJSON(o origin, data []byte, valid bool) decoded {
	var out decoded
	out.err = d.decodeObject(o, data, nil, valid, &out)
	return out
}

// decodeObject decodes one JSON object, expanding Lists into their items.
// def gives the apiVersion and kind of an object that has none (the items
// of an IngressList, as the API server returns them).
func (d *decoder) decodeObject(o origin, data []byte, def *schema.GroupVersionKind, valid bool, out *decoded) error {
	switch first := firstByte(data); first {
	case 'n':
		if string(bytes.TrimSpace(data)) == "null" {
			return nil // an empty document or List item
		}
	case '{':
	default:
		return o.errorf("want an object with apiVersion and kind, not %s", describeJSON(first))
	}
	obj, gvk, err := d.serializer.Decode(data, def, nil)
	switch {
	case err == nil:
		obj.GetObjectKind().SetGroupVersionKind(*gvk)
		out.objects = append(out.objects, decodedObject{origin: o, obj: obj})
		return nil
	case runtime.IsMissingKind(err):
		return o.errorf("kind is not set")
	case runtime.IsMissingVersion(err):
		return o.errorf("apiVersion is not set (kind %s)", gvk.Kind)
	case runtime.IsNotRegisteredError(err):
		if !valid && !json.Valid(data) {
			return o.errorf("invalid JSON")
		}
		return d.other(o, data, *gvk, out)
	case runtime.IsStrictDecodingError(err):
		return o.errorf("%s: %w", describeObject(obj, *gvk), err)
	case gvk == nil:
		return o.errorf("%w", err)
	default:
		return o.errorf("%s %s: %w", gvk.GroupVersion(), gvk.Kind, err)
	}
}

// other handles a document of a kind that render does not read: a List
// (kind List, or any kind ending in List that has items) is expanded, and
// anything else is counted as skipped.
func (d *decoder) other(o origin, data []byte, gvk schema.GroupVersionKind, out *decoded) error {
	if strings.HasSuffix(gvk.Kind, "List") {
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(data, &list); err != nil {
			return o.errorf("%s %s: %w", gvk.GroupVersion(), gvk.Kind, err)
		}
		if list.Items != nil {
			var itemDefault *schema.GroupVersionKind
			if gvk.Kind != "List" {
				itemDefault = &schema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: strings.TrimSuffix(gvk.Kind, "List")}
			}
			for i, item := range list.Items {
				if err := d.decodeObject(o.item(i), item, itemDefault, true, out); err != nil {
					return err
				}
			}
			return nil
		}
	}
	out.skipped = append(out.skipped, gvk.GroupVersion().String()+"/"+gvk.Kind)
	if gvk.Kind == "Ingress" && (gvk.Group == "extensions" || gvk.Group == "networking.k8s.io") {
		var meta struct {
			Metadata struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
		}
		// A malformed metadata leaves the name empty: the Ingress is
		// still reported, as "(no name)".
		_ = json.Unmarshal(data, &meta)
		out.unread = append(out.unread, unreadIngress{apiVersion: gvk.GroupVersion().String(), namespace: meta.Metadata.Namespace, name: meta.Metadata.Name, origin: o})
	}
	return nil
}

func firstByte(data []byte) byte {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r', '\n':
		default:
			return c
		}
	}
	return 0
}

func describeJSON(first byte) string {
	switch {
	case first == '[':
		return "a list"
	case first == '"':
		return "a string"
	case first == 't' || first == 'f':
		return "a boolean"
	case first == '-' || (first >= '0' && first <= '9'):
		return "a number"
	default:
		return "this"
	}
}

// describeObject names an object for a message: "v1 Service team/web".
func describeObject(obj runtime.Object, gvk schema.GroupVersionKind) string {
	s := gvk.GroupVersion().String() + " " + gvk.Kind
	if m, ok := obj.(metav1.Object); ok && m.GetName() != "" {
		if ns := m.GetNamespace(); ns != "" {
			return s + " " + ns + "/" + m.GetName()
		}
		return s + " " + m.GetName()
	}
	return s
}

// jsonError describes why data, which is doc.data without its leading
// blanks, is not JSON, with the line of the file where it fails.
func jsonError(doc document, data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) && syntax.Offset <= int64(len(data)) {
		skipped := len(doc.data) - len(data)
		line := doc.line + bytes.Count(doc.data[:skipped], []byte{'\n'}) + bytes.Count(data[:syntax.Offset], []byte{'\n'})
		return doc.origin.errorf("invalid JSON at line %d: %w", line, err)
	}
	return doc.origin.errorf("invalid JSON: %w", err)
}

// yamlError rewrites the line numbers of a YAML error, which count from the
// start of the document, into lines of the file.
func yamlError(doc document, err error) error {
	lineRef := regexp.MustCompile(`\bline (\d+)`)
	msg := lineRef.ReplaceAllStringFunc(err.Error(), func(m string) string {
		n, convErr := strconv.Atoi(strings.TrimPrefix(m, "line "))
		if convErr != nil {
			return m
		}
		return "line " + strconv.Itoa(doc.line+n-1)
	})
	msg = strings.TrimPrefix(msg, "error converting YAML to JSON: ")
	if strings.Contains(msg, `key "apiVersion" already set in map`) || strings.Contains(msg, `key "kind" already set in map`) {
		// Two objects in one document: files joined with cat, where the
		// second did not start with "---".
		msg += "\n  (two objects run together: separate documents with a line \"---\"; files joined with cat need one at the start of each file)"
	}
	return doc.origin.errorf("invalid YAML: %s", msg)
}
