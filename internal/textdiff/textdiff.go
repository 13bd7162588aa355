// Package textdiff computes line diffs (Myers' O(ND) algorithm) and writes
// them in unified format. It imports only the standard library.
package textdiff

import (
	"fmt"
	"strings"
)

// Op is one line of an edit script.
type Op struct {
	Kind byte // ' ' same, '-' removed, '+' added
	Line string
}

// Lines splits text into lines without their newlines.
func Lines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// Diff returns a shortest edit script from a to b.
func Diff(a, b []string) []Op {
	// Trim the common prefix and suffix: most changes are small.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []Op
	for _, l := range a[:pre] {
		ops = append(ops, Op{' ', l})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, Op{' ', l})
	}
	return ops
}

// myers is the greedy forward algorithm with a trace for backtracking.
func myers(a, b []string) []Op {
	n, m := len(a), len(b)
	if n == 0 && m == 0 {
		return nil
	}
	max := n + m
	v := make([]int, 2*max+2)
	var trace [][]int
	for d := 0; d <= max; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[max+k-1] < v[max+k+1]) {
				x = v[max+k+1]
			} else {
				x = v[max+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[max+k] = x
			if x >= n && y >= m {
				return backtrack(trace, a, b, max)
			}
		}
	}
	panic("textdiff: unreachable")
}

func backtrack(trace [][]int, a, b []string, max int) []Op {
	x, y := len(a), len(b)
	var rev []Op
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d]
		k := x - y
		var prevK int
		if k == -d || (k != d && v[max+k-1] < v[max+k+1]) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := v[max+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			rev = append(rev, Op{' ', a[x-1]})
			x--
			y--
		}
		if d > 0 {
			if x == prevX {
				rev = append(rev, Op{'+', b[y-1]})
			} else {
				rev = append(rev, Op{'-', a[x-1]})
			}
		}
		x, y = prevX, prevY
	}
	ops := make([]Op, len(rev))
	for i := range rev {
		ops[i] = rev[len(rev)-1-i]
	}
	return ops
}

// Unified writes the edit script as unified diff hunks with context lines
// of context, or "" when there is no change. Colour, when not nil, wraps
// removed and added lines and hunk headers.
func Unified(oldName, newName string, ops []Op, context int, color *Colors) string {
	var b strings.Builder
	h := Hunks(ops, context, Section{}, color)
	if h == "" {
		return ""
	}
	header := ""
	if color != nil {
		header = color.Header
	}
	b.WriteString(paint(color, header, "--- "+oldName) + "\n")
	b.WriteString(paint(color, header, "+++ "+newName) + "\n")
	b.WriteString(h)
	return b.String()
}

// Section places an edit script inside a larger file: the line numbers of
// its first line on each side, and a title shown after each hunk header (as
// git shows the enclosing function).
type Section struct {
	FirstOld, FirstNew int // 0-based offsets of the section in the files
	Title              string
}

func paint(color *Colors, c, s string) string {
	if color == nil || c == "" {
		return s
	}
	return c + s + color.Reset
}

// Hunks writes only the hunks of an edit script ("" when nothing changed).
func Hunks(ops []Op, context int, sec Section, color *Colors) string {
	var b strings.Builder
	changed := false
	for _, op := range ops {
		if op.Kind != ' ' {
			changed = true
			break
		}
	}
	if !changed {
		return ""
	}
	var header, del, add string
	if color != nil {
		header, del, add = color.Header, color.Removed, color.Added
	}
	// Positions of each op in a and b (1-based line numbers).
	type pos struct{ a, b int }
	at := make([]pos, len(ops)+1)
	for i, op := range ops {
		at[i+1] = at[i]
		if op.Kind != '+' {
			at[i+1].a++
		}
		if op.Kind != '-' {
			at[i+1].b++
		}
	}
	i := 0
	for i < len(ops) {
		if ops[i].Kind == ' ' {
			i++
			continue
		}
		start := max(i-context, 0)
		end := i
		for end < len(ops) {
			if ops[end].Kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].Kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*context {
				end = min(end+context, len(ops))
				break
			}
			end = run
		}
		aStart, bStart := sec.FirstOld+at[start].a+1, sec.FirstNew+at[start].b+1
		aLen, bLen := at[end].a-at[start].a, at[end].b-at[start].b
		hunk := fmt.Sprintf("@@ -%d,%d +%d,%d @@", aStart, aLen, bStart, bLen)
		if sec.Title != "" {
			hunk += " " + sec.Title
		}
		b.WriteString(paint(color, header, hunk) + "\n")
		for _, op := range ops[start:end] {
			switch op.Kind {
			case '-':
				b.WriteString(paint(color, del, "-"+op.Line) + "\n")
			case '+':
				b.WriteString(paint(color, add, "+"+op.Line) + "\n")
			default:
				b.WriteString(" " + op.Line + "\n")
			}
		}
		i = end
	}
	return b.String()
}

// Colors are the ANSI escapes of a coloured diff.
type Colors struct {
	Header, Removed, Added, Reset string
}

// ANSI is the usual red/green colouring.
var ANSI = &Colors{Header: "\x1b[1m", Removed: "\x1b[31m", Added: "\x1b[32m", Reset: "\x1b[0m"}
