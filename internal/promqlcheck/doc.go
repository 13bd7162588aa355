// Package promqlcheck reads the PromQL of the dashboards and alerts that
// deploy/monitoring ships, for their tests: it parses an expression's
// syntax (a subset of PromQL large enough for those files: selectors,
// ranges, subqueries, offsets, functions, aggregations, binary operators
// with their modifiers) and lists the metric names and label names the
// expression reads, so that a test can check them against what the
// controller registers. It evaluates nothing and is no full PromQL parser:
// what it does not know is an error, never a silent pass.
//
// It imports the standard library and sigs.k8s.io/yaml only.
package promqlcheck
