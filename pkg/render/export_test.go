package render

// SpliceAlways makes inc splice whatever share of the Ingresses a change
// touches, so that the tests' small inputs exercise the splice.
func SpliceAlways(inc *Incremental) { inc.spliceAlways = true }
