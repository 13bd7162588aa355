package promqlcheck

import (
	"fmt"
	"slices"
)

// Selector is one vector selector of an expression: the metric name (""
// for a selector of labels only) and the label names of its matchers.
type Selector struct {
	Metric string
	Labels []string
}

// Expr is what a parsed expression reads.
type Expr struct {
	// Selectors in the order they appear.
	Selectors []Selector
	// Grouping are the label names of by, without, on, ignoring,
	// group_left and group_right clauses, in order (repeats kept).
	Grouping []string
}

// Metrics are the metric names of e's selectors, sorted, each once.
func (e Expr) Metrics() []string {
	var out []string
	for _, s := range e.Selectors {
		if s.Metric != "" {
			out = append(out, s.Metric)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// aggregations are PromQL's aggregation operators; those in
// aggregationParam take a parameter before the vector.
var (
	aggregations     = []string{"sum", "avg", "count", "min", "max", "stddev", "stdvar", "group", "topk", "bottomk", "quantile", "count_values", "limitk", "limit_ratio"}
	aggregationParam = []string{"topk", "bottomk", "quantile", "count_values", "limitk", "limit_ratio"}
)

// functions are PromQL's functions.
var functions = []string{
	"abs", "absent", "absent_over_time", "acos", "acosh", "asin", "asinh", "atan", "atanh",
	"avg_over_time", "ceil", "changes", "clamp", "clamp_max", "clamp_min", "cos", "cosh",
	"count_over_time", "day_of_month", "day_of_week", "day_of_year", "days_in_month", "deg",
	"delta", "deriv", "exp", "floor", "histogram_avg", "histogram_count", "histogram_fraction",
	"histogram_quantile", "histogram_stddev", "histogram_stdvar", "histogram_sum", "hour",
	"idelta", "increase", "irate", "label_join", "label_replace", "last_over_time", "ln",
	"log10", "log2", "mad_over_time", "max_over_time", "min_over_time", "minute", "month",
	"pi", "predict_linear", "present_over_time", "quantile_over_time", "rad", "rate",
	"resets", "round", "scalar", "sgn", "sin", "sinh", "sort", "sort_by_label",
	"sort_by_label_desc", "sort_desc", "sqrt", "stddev_over_time", "stdvar_over_time",
	"sum_over_time", "tan", "tanh", "time", "timestamp", "vector", "year",
}

// binaryWords are the binary operators spelt as words.
var binaryWords = []string{"and", "or", "unless", "atan2"}

// comparisons may take the bool modifier.
var comparisons = []string{"==", "!=", ">", "<", ">=", "<="}

// Parse parses expr and returns what it reads, or the first syntax error.
func Parse(expr string) (Expr, error) {
	toks, err := lex(expr)
	if err != nil {
		return Expr{}, err
	}
	p := &parser{toks: toks}
	if err := p.expr(); err != nil {
		return Expr{}, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return Expr{}, p.errorf(t, "unexpected %s after the expression", t)
	}
	return p.out, nil
}

type parser struct {
	toks []token
	i    int
	out  Expr
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) errorf(t token, format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", t.pos, fmt.Sprintf(format, args...))
}

func (p *parser) is(kind tokenKind, text string) bool {
	t := p.peek()
	return t.kind == kind && t.text == text
}

func (p *parser) expect(kind tokenKind, text string) error {
	t := p.next()
	if t.kind != kind || t.text != text {
		return p.errorf(t, "want %q, got %s", text, t)
	}
	return nil
}

// expr := unary (binop modifiers unary)*
func (p *parser) expr() error {
	if err := p.unary(); err != nil {
		return err
	}
	for {
		t := p.peek()
		isOp := t.kind == tokOp && t.text != "=" && t.text != "=~" && t.text != "!~"
		isWord := t.kind == tokIdent && slices.Contains(binaryWords, t.text)
		if !isOp && !isWord {
			return nil
		}
		p.next()
		if err := p.modifiers(t); err != nil {
			return err
		}
		if err := p.unary(); err != nil {
			return err
		}
	}
}

// modifiers := [bool] [(on|ignoring) labels] [(group_left|group_right) [labels]]
func (p *parser) modifiers(op token) error {
	if p.is(tokIdent, "bool") {
		if !slices.Contains(comparisons, op.text) {
			return p.errorf(p.peek(), "bool after %s, which is no comparison", op)
		}
		p.next()
	}
	if p.is(tokIdent, "on") || p.is(tokIdent, "ignoring") {
		p.next()
		if err := p.labelList(); err != nil {
			return err
		}
		if p.is(tokIdent, "group_left") || p.is(tokIdent, "group_right") {
			p.next()
			if p.is(tokPunct, "(") {
				return p.labelList()
			}
		}
	}
	return nil
}

// labelList := '(' [label (',' label)* [',']] ')'
func (p *parser) labelList() error {
	if err := p.expect(tokPunct, "("); err != nil {
		return err
	}
	for !p.is(tokPunct, ")") {
		t := p.next()
		if t.kind != tokIdent {
			return p.errorf(t, "want a label name, got %s", t)
		}
		p.out.Grouping = append(p.out.Grouping, t.text)
		if !p.is(tokPunct, ",") {
			break
		}
		p.next()
	}
	return p.expect(tokPunct, ")")
}

// unary := ('+'|'-') unary | postfix
func (p *parser) unary() error {
	if p.is(tokOp, "-") || p.is(tokOp, "+") {
		p.next()
		return p.unary()
	}
	return p.postfix()
}

// postfix := primary ['[' range [':' [step]] ']'] ['offset' ['-'] duration]
func (p *parser) postfix() error {
	if err := p.primary(); err != nil {
		return err
	}
	if p.is(tokPunct, "[") {
		p.next()
		if t := p.next(); t.kind != tokDuration {
			return p.errorf(t, "want a duration in [], got %s", t)
		}
		if p.is(tokPunct, ":") {
			p.next()
			if p.peek().kind == tokDuration {
				p.next()
			}
		}
		if err := p.expect(tokPunct, "]"); err != nil {
			return err
		}
	}
	if p.is(tokIdent, "offset") {
		p.next()
		if p.is(tokOp, "-") {
			p.next()
		}
		if t := p.next(); t.kind != tokDuration {
			return p.errorf(t, "want a duration after offset, got %s", t)
		}
	}
	return nil
}

// primary := number | string | '(' expr ')' | aggregation | call | selector
func (p *parser) primary() error {
	t := p.peek()
	switch {
	case t.kind == tokNumber || t.kind == tokString:
		p.next()
		return nil
	case t.kind == tokPunct && t.text == "(":
		p.next()
		if err := p.expr(); err != nil {
			return err
		}
		return p.expect(tokPunct, ")")
	case t.kind == tokPunct && t.text == "{":
		return p.selector("")
	case t.kind == tokIdent:
		p.next()
		switch {
		case t.text == "Inf" || t.text == "NaN" || t.text == "inf" || t.text == "nan":
			return nil
		case slices.Contains(aggregations, t.text):
			return p.aggregation(t)
		case p.is(tokPunct, "("):
			if !slices.Contains(functions, t.text) {
				return p.errorf(t, "unknown function %s", t)
			}
			return p.call()
		case slices.Contains(binaryWords, t.text) || t.text == "by" || t.text == "without" || t.text == "offset" || t.text == "bool":
			return p.errorf(t, "keyword %s where a value belongs", t)
		}
		return p.selector(t.text)
	}
	return p.errorf(t, "want a value, got %s", t)
}

// aggregation := op [grouping] '(' [param ','] expr ')' [grouping]
func (p *parser) aggregation(op token) error {
	grouped := false
	if p.is(tokIdent, "by") || p.is(tokIdent, "without") {
		p.next()
		if err := p.labelList(); err != nil {
			return err
		}
		grouped = true
	}
	if err := p.expect(tokPunct, "("); err != nil {
		return err
	}
	if slices.Contains(aggregationParam, op.text) {
		if err := p.expr(); err != nil {
			return err
		}
		if err := p.expect(tokPunct, ","); err != nil {
			return err
		}
	}
	if err := p.expr(); err != nil {
		return err
	}
	if err := p.expect(tokPunct, ")"); err != nil {
		return err
	}
	if !grouped && (p.is(tokIdent, "by") || p.is(tokIdent, "without")) {
		p.next()
		return p.labelList()
	}
	return nil
}

// call := '(' [expr (',' expr)*] ')' (the name is read)
func (p *parser) call() error {
	if err := p.expect(tokPunct, "("); err != nil {
		return err
	}
	for !p.is(tokPunct, ")") {
		if err := p.expr(); err != nil {
			return err
		}
		if !p.is(tokPunct, ",") {
			break
		}
		p.next()
	}
	return p.expect(tokPunct, ")")
}

// selector := [metric] ['{' [matcher (',' matcher)* [',']] '}']
// matcher := label ('='|'!='|'=~'|'!~') string
func (p *parser) selector(metric string) error {
	s := Selector{Metric: metric}
	if p.is(tokPunct, "{") {
		p.next()
		for !p.is(tokPunct, "}") {
			name := p.next()
			if name.kind != tokIdent {
				return p.errorf(name, "want a label name, got %s", name)
			}
			op := p.next()
			if op.kind != tokOp || (op.text != "=" && op.text != "!=" && op.text != "=~" && op.text != "!~") {
				return p.errorf(op, "want a label matcher operator after %s, got %s", name, op)
			}
			if v := p.next(); v.kind != tokString {
				return p.errorf(v, "want a string after %s%s, got %s", name.text, op.text, v)
			}
			s.Labels = append(s.Labels, name.text)
			if !p.is(tokPunct, ",") {
				break
			}
			p.next()
		}
		if err := p.expect(tokPunct, "}"); err != nil {
			return err
		}
	}
	if s.Metric == "" && len(s.Labels) == 0 {
		return fmt.Errorf("a selector with neither a metric name nor a matcher")
	}
	p.out.Selectors = append(p.out.Selectors, s)
	return nil
}
