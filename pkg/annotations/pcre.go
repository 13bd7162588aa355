package annotations

// The regular expression language that nginx reads. nginx 1.22 (Debian,
// PCRE2 10.42) compiles location and rewrite regexes with pcre2_compile in
// 8-bit mode without PCRE2_UTF, caseless for "~*", and makes every named
// capture an nginx variable; Lua's ngx.re (the canary header pattern) uses
// the same library and mode. Go's regexp reads another language: many
// patterns it accepts make nginx -t fail, which stops every later reload of
// every tenant. CheckRegex accepts only patterns that Go and PCRE2 both
// compile and read alike, and names the construct it refuses.
//
// Each rule was checked with a real nginx -t (pcre_test.go and
// nginxcheck_test.go keep them checked):
//   - a named capture is a variable: "(?<host>…)" fails ("the duplicate
//     "host" variable"), "(?<1a>…)", a repeated name or one over 32
//     characters fail in PCRE2, and any other name would shadow a
//     variable of the config. No named captures at all.
//   - without PCRE2_UTF a code point is a byte: "\x{100}" and "\777" fail,
//     and "\x80" to "\xff" or a non-ASCII byte mean one byte to PCRE2 but a
//     UTF-8 sequence to Go. ASCII only.
//   - a range cannot start or end at a set: "[\d-z]", "[\w-.]", "[\v-z]"
//     fail ("invalid range in character class"); "\v" is a set in PCRE2
//     (vertical space) but a character in Go. "\p" classes need UTF.
//   - "[:alpha:]" outside a class, "[[.a.]]" and "[[=a=]]" fail.
//   - a quantifier after an assertion ("^*", "$*", "\b+", "\A?") fails
//     ("quantifier does not follow a repeatable item").
//   - a literal "{" before a digit or a comma ("x{,5}", "x{ 2 }") is a
//     quantifier to PCRE2 10.43 and later (Debian trixie has 10.45).
//   - "\1" to "\9" are back references in PCRE2 and errors or octal in Go;
//     "\12" is octal or a back reference depending on the number of groups.
//   - PCRE2 nests parentheses 250 deep at most, and refuses a compiled
//     pattern over 64 KiB ("regular expression is too large"), which a
//     repeated group reaches quickly: "(abcdefgh" × 4 + "){1000}".

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

const (
	// regexMaxNesting bounds the nesting of groups (PCRE2: 250).
	regexMaxNesting = 32
	// regexMaxCost bounds the estimated compiled size in bytes; PCRE2
	// built with 2-byte links refuses patterns over 65535 bytes.
	regexMaxCost = 32768
)

// Estimated compiled sizes (PCRE2 opcodes plus operands), each at least
// what pcre2_compile uses: a class is an opcode and a 32-byte bitmap.
const (
	costChar       = 2 // OP_CHAR(I) c
	costClass      = 33
	costType       = 1 // \d, ., …
	costAlt        = 3 // OP_ALT and a link
	costGroup      = 8 // OP_CBRA link number … OP_KET link
	costQuantifier = 8
)

// CheckRegex reports why a regular expression cannot be given to nginx:
// Go's regexp must compile it (the routing specification reads it with
// Go) and PCRE2, as nginx runs it, must read it the same way.
func CheckRegex(re string) error {
	if _, err := regexp.Compile(re); err != nil {
		return err
	}
	return checkPCRE(re)
}

// checkPCRE checks a pattern that Go's regexp compiles against the rules
// above.
func checkPCRE(re string) error {
	for i := 0; i < len(re); i++ {
		if re[i] >= 0x80 {
			return errors.New("regular expression must be ASCII: nginx matches bytes, not UTF-8 characters (percent-decoded bytes can be written as \\xHH up to \\x7f)")
		}
	}
	s := &pcreScanner{re: re}
	if err := s.scan(); err != nil {
		return err
	}
	if s.cost > regexMaxCost {
		return fmt.Errorf("regular expression is too large for nginx's PCRE2 once its repeated groups are expanded (about %d bytes compiled, at most %d)", s.cost, regexMaxCost)
	}
	return nil
}

// pcreScanner walks a pattern once, keeping what a quantifier would repeat
// and an estimate of the compiled size.
type pcreScanner struct {
	re   string
	i    int
	cost int
	// open holds the cost at each open group.
	open []int
	// last is what a quantifier at i would repeat.
	last pcreItem
}

type pcreItem struct {
	repeatable bool
	group      bool
	cost       int
}

func (s *pcreScanner) scan() error {
	for s.i < len(s.re) {
		c := s.re[s.i]
		s.i++
		switch c {
		case '\\':
			if err := s.escape(); err != nil {
				return err
			}
		case '[':
			if err := s.class(); err != nil {
				return err
			}
			s.item(costClass, false)
		case '(':
			if err := s.group(); err != nil {
				return err
			}
		case ')':
			if len(s.open) == 0 {
				return errors.New("invalid regular expression: unbalanced ')'")
			}
			start := s.open[len(s.open)-1]
			s.open = s.open[:len(s.open)-1]
			s.cost += costGroup
			s.last = pcreItem{repeatable: true, group: true, cost: s.cost - start}
		case '|':
			s.cost += costAlt
			s.last = pcreItem{}
		case '^', '$':
			s.cost += costType
			s.last = pcreItem{}
		case '.':
			s.item(costType, false)
		case '*', '+', '?':
			if err := s.quantifier(1, 1); err != nil {
				return err
			}
		case '{':
			if lo, hi, n, ok := countedRepeat(s.re[s.i-1:]); ok {
				s.i += n - 1
				if err := s.quantifier(lo, hi); err != nil {
					return err
				}
			} else if rest := strings.TrimLeft(s.re[s.i:], " "); rest != "" && (rest[0] == ',' || rest[0] >= '0' && rest[0] <= '9') {
				return fmt.Errorf(`"{" at byte %d is a literal to Go and PCRE2 10.42 but a quantifier to PCRE2 10.43 and later ("{,3}", "{ 2 }"); write \{`, s.i-1)
			} else {
				s.item(costChar, false)
			}
		default:
			s.item(costChar, false)
		}
	}
	if len(s.open) > 0 {
		return errors.New("invalid regular expression: missing ')'")
	}
	return nil
}

// item adds a repeatable item.
func (s *pcreScanner) item(cost int, group bool) {
	s.cost += cost
	s.last = pcreItem{repeatable: true, group: group, cost: cost}
}

// quantifier applies *, +, ? (copies 1) or {lo,hi} (hi -1: no upper
// bound) to the last item. PCRE2 compiles a repeated group as that many
// copies of it, so the group's cost is multiplied.
func (s *pcreScanner) quantifier(lo, hi int) error {
	if !s.last.repeatable {
		return fmt.Errorf("quantifier %q at byte %d does not follow a repeatable item (PCRE2 refuses it after an anchor, an assertion such as \\b or a flag group)", s.re[s.i-1:s.i], s.i-1)
	}
	if s.i < len(s.re) && s.re[s.i] == '?' {
		s.i++ // lazy
	}
	copies := max(lo, hi)
	if hi < 0 {
		copies = lo + 1
	}
	if s.last.group && copies > 1 {
		// Each optional copy ({2,5}: 3 of them) is wrapped in a bracket
		// of its own.
		s.cost += s.last.cost*(copies-1) + (costGroup+1)*max(0, copies-max(lo, 1))
	}
	s.cost += costQuantifier
	s.last = pcreItem{}
	return nil
}

// countedRepeat reads "{n}", "{n,}" or "{n,m}" at the start of v, as both
// Go and PCRE2 10.42 do (anything else is a literal "{"); hi is -1 for
// "{n,}".
func countedRepeat(v string) (lo, hi, n int, ok bool) {
	j := 1
	num := func() (int, bool) {
		start, x := j, 0
		for j < len(v) && v[j] >= '0' && v[j] <= '9' {
			if x < 1<<20 {
				x = x*10 + int(v[j]-'0')
			}
			j++
		}
		return x, j > start
	}
	lo, ok = num()
	if !ok || j >= len(v) {
		return 0, 0, 0, false
	}
	hi = lo
	if v[j] == ',' {
		j++
		var has bool
		if hi, has = num(); !has {
			hi = -1
		}
	}
	if j >= len(v) || v[j] != '}' {
		return 0, 0, 0, false
	}
	return lo, hi, j + 1, true
}

// group reads what follows "(": a capture, "(?:", or flags "(?i)" /
// "(?i:".
func (s *pcreScanner) group() error {
	if len(s.open) >= regexMaxNesting {
		return fmt.Errorf("regular expression nests groups more than %d deep", regexMaxNesting)
	}
	rest := s.re[s.i:]
	if !strings.HasPrefix(rest, "?") {
		s.open = append(s.open, s.cost)
		s.last = pcreItem{}
		return nil
	}
	switch {
	case strings.HasPrefix(rest, "?P<"), strings.HasPrefix(rest, "?<") && !strings.HasPrefix(rest, "?<=") && !strings.HasPrefix(rest, "?<!"), strings.HasPrefix(rest, "?'"):
		return errors.New("named captures are not supported: nginx makes each name a variable (\"(?<host>…)\" fails nginx -t, others would override the config's variables); use an unnamed group (…) and $1 to $9")
	}
	j := 1
	for j < len(rest) && strings.IndexByte("imsU-", rest[j]) >= 0 {
		j++
	}
	if j >= len(rest) || (rest[j] != ')' && rest[j] != ':') {
		return fmt.Errorf("group syntax %q is not supported (only (…), (?:…) and the flags i, m, s and U)", "("+rest[:min(j+1, len(rest))])
	}
	s.i += j + 1
	if rest[j] == ')' {
		// A flag setting: not an item, PCRE2 refuses a quantifier on it.
		s.last = pcreItem{}
		return nil
	}
	s.open = append(s.open, s.cost)
	s.last = pcreItem{}
	return nil
}

// escape reads the escape after a backslash outside a class.
func (s *pcreScanner) escape() error {
	if s.i >= len(s.re) {
		return errors.New("invalid regular expression: trailing backslash")
	}
	c := s.re[s.i]
	switch c {
	case 'Q':
		s.i++
		end := strings.Index(s.re[s.i:], `\E`)
		lit := s.re[s.i:]
		if end >= 0 {
			lit = lit[:end]
			s.i += end + 2
		} else {
			s.i = len(s.re)
		}
		for range lit {
			s.item(costChar, false)
		}
		return nil
	case 'b', 'B', 'A', 'z':
		s.i++
		s.cost += costType
		s.last = pcreItem{}
		return nil
	}
	set, err := s.escapeValue()
	if err != nil {
		return err
	}
	if set {
		s.item(costType, false)
	} else {
		s.item(costChar, false)
	}
	return nil
}

// escapeValue reads an escape that stands for one character or a set
// (\d, \s, \w and their negations), in or outside a class; s.i is at the
// character after the backslash.
func (s *pcreScanner) escapeValue() (set bool, err error) {
	c := s.re[s.i]
	s.i++
	switch {
	case strings.IndexByte("dDsSwW", c) >= 0:
		return true, nil
	case strings.IndexByte("aftnr", c) >= 0:
		return false, nil
	case c == 'v':
		return false, errors.New(`escape \v is not supported: it is a vertical tab to Go but any vertical space to PCRE2 (write \x0b)`)
	case c == 'p' || c == 'P':
		return false, fmt.Errorf(`Unicode class \%c is not supported: nginx matches bytes without UTF-8 mode`, c)
	case c >= '0' && c <= '9':
		return false, fmt.Errorf(`escape \%c is not supported: PCRE2 reads \1 to \9 as back references and \NNN as octal or a back reference by the number of groups (write \xHH)`, c)
	case c == 'x':
		return false, s.hexEscape()
	case c < 0x80 && !isAlnum(c):
		return false, nil // an escaped punctuation character
	}
	return false, fmt.Errorf(`escape \%c is not supported`, c)
}

// hexEscape reads \xHH or \x{H…} after the "x" and refuses values beyond
// ASCII: PCRE2 without UTF takes at most \x{ff} as one byte, Go reads a
// code point and matches its UTF-8 bytes.
func (s *pcreScanner) hexEscape() error {
	var digits string
	if strings.HasPrefix(s.re[s.i:], "{") {
		end := strings.IndexByte(s.re[s.i:], '}')
		if end < 0 {
			return errors.New(`invalid regular expression: \x{ without }`)
		}
		digits = s.re[s.i+1 : s.i+end]
		s.i += end + 1
	} else {
		digits = s.re[s.i:min(s.i+2, len(s.re))]
		s.i += len(digits)
	}
	v := 0
	for i := 0; i < len(digits); i++ {
		d := strings.IndexByte("0123456789abcdef", digits[i]|0x20)
		if d < 0 || digits[i] == ' ' {
			return fmt.Errorf(`invalid regular expression: \x%s`, digits)
		}
		if v = v*16 + d; v > 0x7f {
			return fmt.Errorf(`escape \x%s is not supported: only ASCII, \x00 to \x7f (nginx's PCRE2 refuses \x{100} and above, and reads \x80 to \xff as one byte where Go reads a UTF-8 character)`, digits)
		}
	}
	if digits == "" {
		return errors.New(`invalid regular expression: \x without digits`)
	}
	return nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// posixClasses are the names both Go and PCRE2 know in "[[:name:]]".
var posixClasses = []string{"alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "word", "xdigit"}

// class reads a character class after its "[". A range ends at single
// characters only: PCRE2 refuses "[\d-z]" and "[\w-.]", which Go reads
// with a literal "-".
func (s *pcreScanner) class() error {
	start := s.i - 1
	if s.i < len(s.re) && s.re[s.i] == '^' {
		s.i++
	}
	if s.i == start+1 && looksPOSIX(s.re[start:]) {
		return fmt.Errorf(`class at byte %d is not supported: PCRE2 reads "[%c…%c]" as a POSIX class or collating element outside a class; escape the first %c`, start, s.re[s.i], s.re[s.i], s.re[s.i])
	}
	for first := true; ; first = false {
		if s.i >= len(s.re) {
			return errors.New("invalid regular expression: missing ']'")
		}
		if s.re[s.i] == ']' && !first {
			s.i++
			return nil
		}
		set, err := s.classElement()
		if err != nil {
			return err
		}
		if s.i+1 < len(s.re) && s.re[s.i] == '-' && s.re[s.i+1] != ']' {
			if set {
				return fmt.Errorf(`class range at byte %d starts at a set such as \d or [:alpha:], which PCRE2 refuses; put the "-" last or escape it`, s.i)
			}
			s.i++
			if set, err = s.classElement(); err != nil {
				return err
			}
			if set {
				return fmt.Errorf(`class range ending at byte %d ends at a set such as \d, which PCRE2 refuses`, s.i)
			}
		}
	}
}

// looksPOSIX reports whether PCRE2 reads the "[" that v starts with as
// the start of a POSIX class ("[:alpha:]") or collating element ("[.a.]",
// "[=a=]"): the character after "[" is ":", "." or "=", and the same
// character followed by "]" comes before any other "]".
func looksPOSIX(v string) bool {
	if len(v) < 2 || strings.IndexByte(":.=", v[1]) < 0 {
		return false
	}
	term := v[1]
	for j := 2; j < len(v); j++ {
		switch {
		case v[j] == '\\' && j+1 < len(v) && (v[j+1] == ']' || v[j+1] == '\\'):
			j++
		case v[j] == '[' && j+1 < len(v) && v[j+1] == term, v[j] == ']':
			return false
		case v[j] == term && j+1 < len(v) && v[j+1] == ']':
			return true
		}
	}
	return false
}

// classElement reads one character, escape or POSIX class of a class and
// says whether it is a set.
func (s *pcreScanner) classElement() (set bool, err error) {
	c := s.re[s.i]
	switch c {
	case '\\':
		s.i++
		if s.i >= len(s.re) {
			return false, errors.New("invalid regular expression: trailing backslash")
		}
		if s.re[s.i] == 'b' || s.re[s.i] == 'Q' || s.re[s.i] == 'E' {
			return false, fmt.Errorf(`escape \%c is not supported in a class`, s.re[s.i])
		}
		return s.escapeValue()
	case '[':
		rest := s.re[s.i:]
		for _, name := range posixClasses {
			for _, form := range []string{"[:" + name + ":]", "[:^" + name + ":]"} {
				if strings.HasPrefix(rest, form) {
					s.i += len(form)
					return true, nil
				}
			}
		}
		return false, fmt.Errorf(`"[" at byte %d in a class is not supported unless it starts a POSIX class such as [:alpha:]; write \[`, s.i)
	}
	s.i++
	return false, nil
}
