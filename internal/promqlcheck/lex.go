package promqlcheck

import (
	"fmt"
	"strings"
)

// tokenKind sorts the tokens of an expression.
type tokenKind int

const (
	tokEOF tokenKind = iota
	tokIdent
	tokNumber
	tokDuration
	tokString
	tokOp    // + - * / % ^ == != > < >= <= = =~ !~
	tokPunct // ( ) { } [ ] , :
)

type token struct {
	kind tokenKind
	text string // a string's value without its quotes
	pos  int
}

func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "the end"
	case tokString:
		return fmt.Sprintf("%q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// durationUnits are PromQL's duration units, longest first.
var durationUnits = []string{"ms", "s", "m", "h", "d", "w", "y"}

func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lex splits expr into tokens; # starts a comment up to the line's end.
func lex(expr string) ([]token, error) {
	var out []token
	i := 0
	for i < len(expr) {
		c := expr[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#':
			for i < len(expr) && expr[i] != '\n' {
				i++
			}
		case isDigit(c) || (c == '.' && i+1 < len(expr) && isDigit(expr[i+1])):
			t, n, err := lexNumber(expr, i)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
			i = n
		case isIdentStart(c) && c != ':':
			j := i
			for j < len(expr) && isIdentChar(expr[j]) {
				j++
			}
			out = append(out, token{tokIdent, expr[i:j], i})
			i = j
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			var b strings.Builder
			for ; j < len(expr) && expr[j] != c; j++ {
				if expr[j] == '\\' && c != '`' {
					j++
					if j == len(expr) {
						break
					}
				}
				if expr[j] == '\n' && c != '`' {
					return nil, fmt.Errorf("offset %d: a line break in a string", j)
				}
				b.WriteByte(expr[j])
			}
			if j >= len(expr) {
				return nil, fmt.Errorf("offset %d: unterminated string", i)
			}
			out = append(out, token{tokString, b.String(), i})
			i = j + 1
		case strings.ContainsRune("(){}[],:", rune(c)):
			out = append(out, token{tokPunct, string(c), i})
			i++
		default:
			op := ""
			for _, o := range []string{"==", "!=", ">=", "<=", "=~", "!~", "+", "-", "*", "/", "%", "^", ">", "<", "="} {
				if strings.HasPrefix(expr[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, fmt.Errorf("offset %d: unexpected character %q", i, c)
			}
			out = append(out, token{tokOp, op, i})
			i += len(op)
		}
	}
	return append(out, token{tokEOF, "", len(expr)}), nil
}

// lexNumber reads a number (1, 0.5, 1e3, 0x1f) or a duration (5m, 1h30m,
// 250ms) at i.
func lexNumber(expr string, i int) (token, int, error) {
	j := i
	for j < len(expr) && (isDigit(expr[j]) || expr[j] == '.') {
		j++
	}
	if j < len(expr) && (expr[j] == 'e' || expr[j] == 'E') && j+1 < len(expr) && (isDigit(expr[j+1]) || expr[j+1] == '-' || expr[j+1] == '+') {
		j += 2
		for j < len(expr) && isDigit(expr[j]) {
			j++
		}
		return token{tokNumber, expr[i:j], i}, j, nil
	}
	if j < len(expr) && isIdentStart(expr[j]) {
		// A duration: digits and units, repeated.
		k := i
		for k < len(expr) && isDigit(expr[k]) {
			for k < len(expr) && isDigit(expr[k]) {
				k++
			}
			unit := ""
			for _, u := range durationUnits {
				if strings.HasPrefix(expr[k:], u) {
					unit = u
					break
				}
			}
			if unit == "" {
				return token{}, 0, fmt.Errorf("offset %d: bad number or duration %q", i, expr[i:min(len(expr), k+1)])
			}
			k += len(unit)
		}
		if k < len(expr) && isIdentChar(expr[k]) && expr[k] != ':' {
			return token{}, 0, fmt.Errorf("offset %d: bad duration %q", i, expr[i:k+1])
		}
		return token{tokDuration, expr[i:k], i}, k, nil
	}
	if strings.Count(expr[i:j], ".") > 1 {
		return token{}, 0, fmt.Errorf("offset %d: bad number %q", i, expr[i:j])
	}
	return token{tokNumber, expr[i:j], i}, j, nil
}
