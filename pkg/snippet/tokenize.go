package snippet

import (
	"fmt"
	"strings"
)

// Token kinds.
const (
	// Word is a directive name or argument (unquoted or quoted).
	Word TokenKind = iota
	// Semicolon ends a directive.
	Semicolon
	// BlockOpen is "{", BlockClose "}".
	BlockOpen
	BlockClose
)

// TokenKind is the kind of a Token.
type TokenKind int

// Token is one token of nginx configuration text.
type Token struct {
	Kind TokenKind
	// Text is the value nginx makes of a Word: quotes removed; \" \' and
	// \\ unescaped; \t, \r and \n turned into tab, CR and LF (in quoted
	// and unquoted words alike, as nginx does); any other backslash kept.
	Text string
	// Quoted says the word was written in single or double quotes.
	Quoted bool
	// Line is the 1-based line the token starts on.
	Line int
}

// SyntaxError is text that nginx's parser would refuse.
type SyntaxError struct {
	Line   int
	Reason string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// Tokenize splits nginx configuration text into tokens as nginx's
// ngx_conf_read_token does: spaces, tabs, CR and LF separate words; ";",
// "{" and "}" at the start of a token are tokens of their own; a "#" at the
// start of a token comments out the rest of the line; a word that starts
// with a double or single quote runs to the matching unescaped quote and
// must be followed by a space, ";", "{" or ")"; in an unquoted word a
// backslash escapes the next character, ";" and "{" (but not "${") end the
// word, and "}" or "#" do not. Braces are not matched here (the
// translator does that), but the block of a directive whose name holds
// "_by_lua" is Lua, not nginx text, as nginx's Lua module reads it: it is
// skipped to its matching "}" and given as an empty block.
func Tokenize(text string) ([]Token, error) {
	var out []Token
	line := 1
	i := 0
	for i < len(text) {
		if len(out) > 0 && out[len(out)-1].Kind == Word && text[i] == '{' && luaDirective(out) {
			start := line
			end, lines, ok := skipLua(text, i+1)
			if !ok {
				return nil, &SyntaxError{Line: start, Reason: "unterminated Lua block"}
			}
			out = append(out, Token{Kind: BlockOpen, Text: "{", Line: start}, Token{Kind: BlockClose, Text: "}", Line: start + lines})
			line += lines
			i = end
			continue
		}
		c := text[i]
		switch c {
		case '\n':
			line++
			i++
			continue
		case ' ', '\t', '\r':
			i++
			continue
		case '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			continue
		case ';':
			out = append(out, Token{Kind: Semicolon, Text: ";", Line: line})
			i++
			continue
		case '{':
			out = append(out, Token{Kind: BlockOpen, Text: "{", Line: line})
			i++
			continue
		case '}':
			out = append(out, Token{Kind: BlockClose, Text: "}", Line: line})
			i++
			continue
		case '"', '\'':
			start := line
			j := i + 1
			for ; j < len(text); j++ {
				if text[j] == '\\' && j+1 < len(text) {
					if text[j+1] == '\n' {
						line++
					}
					j++
					continue
				}
				if text[j] == '\n' {
					line++
				}
				if text[j] == c {
					break
				}
			}
			if j >= len(text) {
				return nil, &SyntaxError{Line: start, Reason: "unterminated quoted string"}
			}
			out = append(out, Token{Kind: Word, Text: unescape(text[i+1 : j]), Quoted: true, Line: start})
			i = j + 1
			if i < len(text) && !strings.ContainsRune(" \t\r\n;{)", rune(text[i])) {
				return nil, &SyntaxError{Line: line, Reason: fmt.Sprintf("unexpected %q after a quoted string", text[i])}
			}
			continue
		}
		start, startLine := i, line
		for i < len(text) {
			ch := text[i]
			if ch == '\\' && i+1 < len(text) {
				if text[i+1] == '\n' {
					line++
				}
				i += 2
				continue
			}
			if ch == '{' && i > start && text[i-1] == '$' {
				i++
				continue
			}
			if strings.IndexByte(" \t\r\n;{", ch) >= 0 {
				break
			}
			i++
		}
		out = append(out, Token{Kind: Word, Text: unescape(text[start:min(i, len(text))]), Line: startLine})
	}
	return out, nil
}

// unescape makes nginx's value of a token's raw text.
func unescape(raw string) string {
	if !strings.Contains(raw, `\`) {
		return raw
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) {
			switch raw[i+1] {
			case '"', '\'', '\\':
				i++
			case 't':
				b.WriteByte('\t')
				i++
				continue
			case 'r':
				b.WriteByte('\r')
				i++
				continue
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			}
		}
		b.WriteByte(raw[i])
	}
	return b.String()
}

// luaDirective says whether the directive that the words at the end of out
// belong to is a *_by_lua* one.
func luaDirective(out []Token) bool {
	j := len(out) - 1
	for j > 0 && out[j-1].Kind == Word {
		j--
	}
	return strings.Contains(out[j].Text, "_by_lua")
}

// skipLua returns the offset just past the "}" that closes a Lua block
// whose body starts at i, and the newlines it holds; braces in Lua strings
// or comments are counted too (nginx's Lua module reads them the same way
// for a well-formed block).
func skipLua(text string, i int) (end, lines int, ok bool) {
	depth := 1
	for ; i < len(text); i++ {
		switch text[i] {
		case '\n':
			lines++
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1, lines, true
			}
		}
	}
	return 0, lines, false
}
