package main

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/luaapi"
)

// backends' kubectl printers: -o jsonpath=…, go-template=…,
// custom-columns=… (and their -file and -as-json forms, --template,
// --allow-missing-template-keys), as kubectl get has them. They read a v1
// List whose items are the backends as -o json prints each one, so that
// `-o jsonpath='{.items[*].name}'` lists the names; -o json itself stays
// the plain array ingress-nginx's plugin printed.

// backendsTemplateFormats are the -o values that go to kubectl's printers.
func backendsTemplateFormats(pf *listPrintFlags) []string {
	var formats []string
	for _, f := range slices.Concat(pf.templates.AllowedFormats(), pf.columns.AllowedFormats()) {
		if !slices.Contains(formats, f) {
			formats = append(formats, f)
		}
	}
	slices.Sort(formats)
	return formats
}

// backendsPrinter returns kubectl's printer for output (with --template
// alone, a go-template), nil for backends' own formats; noHeaders is
// --no-headers, for custom columns.
func backendsPrinter(pf *listPrintFlags, output string, outputSet, noHeaders bool) (printers.ResourcePrinter, error) {
	return ownOrKubectlPrinter(pf, backendsOutputs, output, outputSet, noHeaders)
}

// ownOrKubectlPrinter returns kubectl's printer for output (with
// --template alone, a go-template), nil for the command's own formats.
func ownOrKubectlPrinter(pf *listPrintFlags, ownFormats []string, output string, outputSet, noHeaders bool) (printers.ResourcePrinter, error) {
	own := slices.Contains(ownFormats, output)
	if own && (outputSet || pf.template() == "") {
		return nil, nil
	}
	if own {
		output = "" // --template alone: kubectl's go-template
	}
	format, _, _ := strings.Cut(output, "=")
	if output != "" && !slices.Contains(backendsTemplateFormats(pf), format) {
		var shown []string
		for _, f := range ownFormats {
			if f != "" {
				shown = append(shown, f)
			}
		}
		return nil, fmt.Errorf("--output must be one of %s, got %q", strings.Join(slices.Concat(shown, backendsTemplateFormats(pf)), ", "), output)
	}
	pf.Output, pf.NoHeaders = output, noHeaders
	return pf.ToPrinter()
}

// backendList is backends as a v1 List of their wire objects.
func backendList(backends []backendInfo) (*unstructured.UnstructuredList, error) {
	wires := make([]luaapi.Backend, len(backends))
	for i, b := range backends {
		wires[i] = b.wire
	}
	return v1List(wires)
}

// v1List is items as a v1 List, each item the object its JSON encoding
// is (so jsonpath and templates read the fields -o json shows).
func v1List[T any](items []T) (*unstructured.UnstructuredList, error) {
	list := &unstructured.UnstructuredList{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "List",
		"metadata":   map[string]any{"resourceVersion": ""},
	}}
	for i := range items {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&items[i])
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		list.Items = append(list.Items, unstructured.Unstructured{Object: content})
	}
	return list, nil
}
