package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/kubectl/pkg/cmd/get"
)

// listPrintFlags are kubectl get's output flags for a verb whose output
// is a list of rows: -o (the verb's own table by default, wide, json,
// yaml, name, jsonpath, jsonpath-as-json, jsonpath-file, go-template,
// go-template-file, template, templatefile, custom-columns,
// custom-columns-file), --template, --allow-missing-template-keys and
// --no-headers. The printers are cli-runtime's and kubectl's own, chosen
// in the order kubectl get chooses them, so that formats, templates and
// their error texts are kubectl's. --show-managed-fields is left out:
// rows have no managed fields.
type listPrintFlags struct {
	Output    string
	NoHeaders bool

	jsonYAML  *genericclioptions.JSONYamlPrintFlags
	name      *genericclioptions.NamePrintFlags
	templates *genericclioptions.KubeTemplatePrintFlags
	columns   *get.CustomColumnsPrintFlags
}

// tableFormats are the -o values that print the verb's own table.
var tableFormats = []string{"wide"}

func newListPrintFlags() *listPrintFlags {
	return &listPrintFlags{
		jsonYAML:  genericclioptions.NewJSONYamlPrintFlags(),
		name:      genericclioptions.NewNamePrintFlags(""),
		templates: genericclioptions.NewKubeTemplatePrintFlags(),
		columns:   get.NewCustomColumnsPrintFlags(),
	}
}

// AllowedFormats are the values of -o, sorted as kubectl's error lists them.
func (f *listPrintFlags) AllowedFormats() []string {
	formats := slices.Concat(f.jsonYAML.AllowedFormats(), f.name.AllowedFormats(), f.templates.AllowedFormats(), f.columns.AllowedFormats(), tableFormats)
	slices.Sort(formats)
	return formats
}

// AddFlags adds -o, --template, --allow-missing-template-keys and
// --no-headers to cmd, and completes -o with the formats.
func (f *listPrintFlags) AddFlags(cmd *cobra.Command) {
	f.templates.AddFlags(cmd)
	cmd.Flags().StringVarP(&f.Output, "output", "o", f.Output, fmt.Sprintf("Output format. One of: (%s). Empty for the table. See custom columns [https://kubernetes.io/docs/reference/kubectl/#custom-columns], golang template [http://golang.org/pkg/text/template/#pkg-overview] and jsonpath template [https://kubernetes.io/docs/reference/kubectl/jsonpath/].", strings.Join(f.AllowedFormats(), ", ")))
	cmd.Flags().BoolVar(&f.NoHeaders, "no-headers", f.NoHeaders, "When using the default or custom-column output format, don't print headers (default print headers).")
	_ = cmd.RegisterFlagCompletionFunc("output", func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var comps []string
		for _, format := range f.AllowedFormats() {
			if strings.HasPrefix(format, toComplete) {
				comps = append(comps, format)
			}
		}
		return comps, cobra.ShellCompDirectiveNoFileComp
	})
}

// Table says whether the verb prints its own table (-o empty or wide),
// and Wide whether the wide one.
func (f *listPrintFlags) Table() bool {
	return (f.Output == "" && f.template() == "") || f.Wide()
}

func (f *listPrintFlags) Wide() bool { return f.Output == "wide" }

func (f *listPrintFlags) template() string {
	if f.templates.TemplateArgument == nil {
		return ""
	}
	return *f.templates.TemplateArgument
}

// ToPrinter returns the printer of -o, nil for the verb's own table. A
// bad format or template is a usage error naming its flag, with
// kubectl's text.
func (f *listPrintFlags) ToPrinter() (printers.ResourcePrinter, error) {
	if f.Table() {
		return nil, nil
	}
	p, err := f.toPrinter()
	if err == nil {
		return p, nil
	}
	flag := "--output"
	if f.template() != "" && !strings.Contains(f.Output, "=") {
		flag = "--template"
	}
	return nil, &usageError{err: fmt.Errorf("%s: %s", flag, strings.TrimSpace(err.Error()))}
}

// toPrinter is kubectl get's PrintFlags.ToPrinter without its
// human-readable printers: templates first (--template alone is a
// go-template), then json and yaml, custom columns, name.
func (f *listPrintFlags) toPrinter() (printers.ResourcePrinter, error) {
	format := f.Output
	if f.template() != "" && format == "" {
		format = "go-template"
	}
	f.columns.NoHeaders = f.NoHeaders
	f.columns.TemplateArgument = f.template()
	if p, err := f.templates.ToPrinter(format); !genericclioptions.IsNoCompatiblePrinterError(err) {
		return p, err
	}
	if p, err := f.jsonYAML.ToPrinter(format); !genericclioptions.IsNoCompatiblePrinterError(err) {
		return p, err
	}
	if p, err := f.columns.ToPrinter(format); !genericclioptions.IsNoCompatiblePrinterError(err) {
		return p, err
	}
	if p, err := f.name.ToPrinter(format); !genericclioptions.IsNoCompatiblePrinterError(err) {
		return p, err
	}
	return nil, genericclioptions.NoCompatiblePrinterError{OutputFormat: &format, AllowedFormats: f.AllowedFormats()}
}

// printError makes a template's failure while printing (one that reads a
// missing key with --allow-missing-template-keys=false) a usage error
// that names -o, as ToPrinter's are; other errors stay as they are.
func printError(err error) error {
	var ue *usageError
	if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), "error executing ") {
		return err
	}
	return &usageError{err: fmt.Errorf("--output: %s", strings.TrimSpace(err.Error()))}
}
