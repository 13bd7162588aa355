package render

import "github.com/kubectl-ingress/kubectl-ingress/pkg/model"

// QuarantineReason starts the reason of the Problem of an Ingress left out
// by Options.Quarantined; nginx's message follows it. Problem reporters
// tell quarantine Problems apart by it (a Warning Event of its own reason,
// a metric family).
const QuarantineReason = "quarantined: nginx -t: "

// QuarantineField is the field of that Problem: the whole object is left
// out, until its metadata (resourceVersion) says that it changed.
const QuarantineField = "metadata"

// quarantined reports whether ref is left out by Options.Quarantined, and
// records its Problem.
func (b *builder) quarantined(ref model.ObjectRef) bool {
	msg, ok := b.opts.Quarantined[ref]
	if !ok {
		return false
	}
	b.problem(ref, QuarantineField, "%s%s", QuarantineReason, msg)
	return true
}
