package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/kubectl-ingress/kubectl-ingress/pkg/manifest"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/model"
	"github.com/kubectl-ingress/kubectl-ingress/pkg/render"
)

// sarifInformationURI is the tool's page in the SARIF output.
const sarifInformationURI = "https://github.com/kubectl-ingress/kubectl-ingress"

// lintRule is one class of Problem: a SARIF rule. The ids are stable: code
// scanning tracks alerts by them.
type lintRule struct {
	id, description string
}

// lintRules are the classes of Problem, in the order of the SARIF rules
// array (ruleIndex); the corpus runner (testdata/corpus/run.py) sorts
// reasons into the same classes.
func lintRules() []lintRule {
	return []lintRule{
		{"skipped", "Input left out: an Ingress of another class or an old API version, or a --configmap not in the input"},
		{"snippet", "A snippet annotation or key that is refused"},
		{"not-supported", "An annotation, key or value that this controller does not support"},
		{"unknown", "An unknown annotation or ConfigMap key"},
		{"invalid", "An invalid value"},
		{"problem", "Another problem of the input (a missing Service, Secret or certificate, a host claimed twice, ...)"},
	}
}

// lintRuleIndex is the index in lintRules of p's class.
func lintRuleIndex(p model.Problem) int {
	r := strings.ToLower(p.Reason)
	switch {
	case render.IsSkipped(p):
		return 0
	case strings.Contains(r, "snippet") && (strings.Contains(r, "not supported") || strings.Contains(r, "never allows")):
		return 1
	case strings.Contains(r, "not supported") || strings.Contains(r, "not implemented"):
		return 2
	case strings.Contains(r, "unknown annotation") || strings.Contains(r, "unknown key"):
		return 3
	case strings.Contains(r, "invalid"):
		return 4
	}
	return 5
}

// The SARIF 2.1.0 subset written: what GitHub code scanning reads.
type (
	sarifLog struct {
		Version string     `json:"version"`
		Schema  string     `json:"$schema"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID               string       `json:"id"`
		ShortDescription sarifMessage `json:"shortDescription"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifMessage    `json:"message"`
		Locations []sarifLocation `json:"locations,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	}
	sarifPhysicalLocation struct {
		ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
		Region           *sarifRegion          `json:"region,omitempty"`
	}
	sarifArtifactLocation struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
)

// writeLintSARIF writes problems as a SARIF 2.1.0 log: a result per
// Problem, at the file and line of its object when the object was read
// from a file (else at the only file read, if one; none from stdin).
func writeLintSARIF(w io.Writer, res *manifest.Result, problems []model.Problem) error {
	rules := lintRules()
	driver := sarifDriver{Name: "kubectl-ingress", InformationURI: sarifInformationURI, Rules: make([]sarifRule, len(rules))}
	for i, r := range rules {
		driver.Rules[i] = sarifRule{ID: r.id, ShortDescription: sarifMessage{Text: r.description}}
	}
	results := make([]sarifResult, 0, len(problems))
	for _, p := range problems {
		i := lintRuleIndex(p)
		level := "error"
		if i == 0 {
			level = "warning"
		}
		results = append(results, sarifResult{
			RuleID: rules[i].id, RuleIndex: i, Level: level,
			Message:   sarifMessage{Text: p.String()},
			Locations: sarifLocations(res, p.Object),
		})
	}
	b, err := json.MarshalIndent(sarifLog{
		Version: "2.1.0",
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Runs:    []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}},
	}, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func sarifLocations(res *manifest.Result, obj model.ObjectRef) []sarifLocation {
	loc, ok := res.Location(obj.Kind, obj.Namespace, obj.Name)
	if !ok {
		if len(res.Files) != 1 {
			return nil
		}
		loc = manifest.Location{File: res.Files[0]}
	}
	if loc.File == manifest.StdinName {
		return nil
	}
	l := sarifLocation{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: sarifURI(loc.File)}}}
	if loc.Line > 0 {
		l.PhysicalLocation.Region = &sarifRegion{StartLine: loc.Line}
	}
	return []sarifLocation{l}
}

// sarifURI is a file's name as a URI reference: relative as given (with
// "/"), an absolute path as a file: URI.
func sarifURI(name string) string {
	slashed := filepath.ToSlash(name)
	if filepath.IsAbs(name) {
		if !strings.HasPrefix(slashed, "/") {
			slashed = "/" + slashed // a Windows drive
		}
		return (&url.URL{Scheme: "file", Path: slashed}).String()
	}
	return (&url.URL{Path: strings.TrimPrefix(slashed, "./")}).String()
}
