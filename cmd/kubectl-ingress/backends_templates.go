package main

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
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
	own := slices.Contains(backendsOutputs, output)
	if own && (outputSet || pf.template() == "") {
		return nil, nil
	}
	if own {
		output = "" // --template alone: kubectl's go-template
	}
	format, _, _ := strings.Cut(output, "=")
	if output != "" && !slices.Contains(backendsTemplateFormats(pf), format) {
		return nil, fmt.Errorf("--output must be one of %s, got %q", strings.Join(slices.Concat(backendsOutputs, backendsTemplateFormats(pf)), ", "), output)
	}
	pf.Output, pf.NoHeaders = output, noHeaders
	return pf.ToPrinter()
}

// backendList is backends as a v1 List of their wire objects.
func backendList(backends []backendInfo) (*unstructured.UnstructuredList, error) {
	list := &unstructured.UnstructuredList{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "List",
		"metadata":   map[string]any{"resourceVersion": ""},
	}}
	for _, b := range backends {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&b.wire)
		if err != nil {
			return nil, fmt.Errorf("backend %s: %w", b.wire.Name, err)
		}
		list.Items = append(list.Items, unstructured.Unstructured{Object: content})
	}
	return list, nil
}
