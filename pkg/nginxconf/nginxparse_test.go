package nginxconf

import (
	"fmt"
	"strings"
)

// tokenizeConf splits nginx.conf text into directives the way nginx's
// ngx_conf_read_token does: whitespace separates tokens; ";" ends a
// directive, "{" opens a block and "}" closes it; "#" starts a comment at a
// token start; a token that starts with a double or single quote runs to the
// matching unescaped quote, and a backslash escapes the next character. The
// body of a *_by_lua_block is Lua: it is skipped to the matching brace.
// Tokens are returned as written (quotes and escapes kept) so that they can
// be compared with what the writer meant to write.
func tokenizeConf(text string) ([]confEvent, error) {
	var events []confEvent
	var tokens []string
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == ';':
			if len(tokens) == 0 {
				return nil, fmt.Errorf("offset %d: unexpected \";\"", i)
			}
			events = append(events, confEvent{tokens: tokens})
			tokens = nil
			i++
		case c == '{':
			if len(tokens) == 0 {
				return nil, fmt.Errorf("offset %d: unexpected \"{\"", i)
			}
			events = append(events, confEvent{tokens: tokens, block: true})
			i++
			if strings.HasSuffix(tokens[0], "_by_lua_block") {
				end, err := skipLua(text, i)
				if err != nil {
					return nil, err
				}
				events = append(events, confEvent{end: true})
				i = end
			}
			tokens = nil
		case c == '}':
			if len(tokens) != 0 {
				return nil, fmt.Errorf("offset %d: unexpected \"}\" after %q", i, tokens)
			}
			events = append(events, confEvent{end: true})
			i++
		case c == '"' || c == '\'':
			end, err := quotedEnd(text, i)
			if err != nil {
				return nil, err
			}
			tokens = append(tokens, text[i:end])
			i = end
			if i < len(text) && !strings.ContainsRune(" \t\r\n;{)", rune(text[i])) {
				return nil, fmt.Errorf("offset %d: unexpected %q after a quoted token", i, text[i])
			}
		default:
			start := i
			for i < len(text) {
				ch := text[i]
				if ch == '\\' {
					i += 2
					continue
				}
				if ch == '{' && i > start && text[i-1] == '$' {
					i++
					continue
				}
				if strings.ContainsRune(" \t\r\n;{", rune(ch)) {
					break
				}
				i++
			}
			tokens = append(tokens, text[start:min(i, len(text))])
		}
	}
	if len(tokens) != 0 {
		return nil, fmt.Errorf("unexpected end of file after %q", tokens)
	}
	return events, nil
}

func quotedEnd(text string, i int) (int, error) {
	q := text[i]
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			j++
		case q:
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("offset %d: unterminated quoted token", i)
}

// skipLua returns the offset just past the "}" that closes a Lua block
// whose body starts at i.
func skipLua(text string, i int) (int, error) {
	depth := 1
	for ; i < len(text); i++ {
		switch text[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		}
	}
	return 0, fmt.Errorf("unterminated Lua block")
}

// unquoteToken gives the value nginx's parser makes of a token: outer quotes
// removed, and \" \' \\ unescaped (other escapes stay, as nginx leaves them;
// the writer never produces \t \r \n escapes).
func unquoteToken(tok string) string {
	if len(tok) >= 2 && (tok[0] == '"' || tok[0] == '\'') {
		tok = tok[1 : len(tok)-1]
	}
	var b strings.Builder
	for i := 0; i < len(tok); i++ {
		if tok[i] == '\\' && i+1 < len(tok) && strings.IndexByte(`"'\`, tok[i+1]) >= 0 {
			i++
		}
		b.WriteByte(tok[i])
	}
	return b.String()
}
