package snippet

import "fmt"

// directive is one parsed directive: its name, its arguments and, for a
// block directive, the directives of its block.
type directive struct {
	Name  string
	Line  int
	Args  []Token
	Block []directive
	// HasBlock says the directive ends in a block, not in ";".
	HasBlock bool
}

// parse reads tokens into directives, matching braces as nginx does.
func parse(tokens []Token) ([]directive, error) {
	ds, rest, err := parseBlock(tokens, false)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		return nil, &SyntaxError{Line: rest[0].Line, Reason: `unexpected "}": the snippet closes a block it did not open`}
	}
	return ds, nil
}

// parseBlock reads directives until the "}" that closes the block (when
// inBlock) or the end; it returns the tokens after that "}" (which it
// consumes) or, at the top level, the stray "}" and what follows.
func parseBlock(tokens []Token, inBlock bool) ([]directive, []Token, error) {
	var out []directive
	var cur *directive
	for i := 0; i < len(tokens); i++ {
		t := tokens[i]
		switch t.Kind {
		case Word:
			if cur == nil {
				out = append(out, directive{Name: t.Text, Line: t.Line})
				cur = &out[len(out)-1]
				continue
			}
			cur.Args = append(cur.Args, t)
		case Semicolon:
			if cur == nil {
				return nil, nil, &SyntaxError{Line: t.Line, Reason: `unexpected ";"`}
			}
			cur = nil
		case BlockOpen:
			if cur == nil {
				return nil, nil, &SyntaxError{Line: t.Line, Reason: `unexpected "{"`}
			}
			block, rest, err := parseBlock(tokens[i+1:], true)
			if err != nil {
				return nil, nil, err
			}
			cur.Block, cur.HasBlock = block, true
			cur = nil
			i = len(tokens) - len(rest) - 1
		case BlockClose:
			if cur != nil {
				return nil, nil, &SyntaxError{Line: t.Line, Reason: fmt.Sprintf(`unexpected "}" after %q: a directive must end in ";"`, cur.Name)}
			}
			if !inBlock {
				return out, tokens[i:], nil
			}
			return out, tokens[i+1:], nil
		}
	}
	if cur != nil {
		return nil, nil, &SyntaxError{Line: cur.Line, Reason: fmt.Sprintf(`unexpected end of the snippet after %q: a directive must end in ";"`, cur.Name)}
	}
	if inBlock {
		line := 1
		if len(tokens) > 0 {
			line = tokens[len(tokens)-1].Line
		}
		return nil, nil, &SyntaxError{Line: line, Reason: `unexpected end of the snippet: a block is not closed with "}"`}
	}
	return out, nil, nil
}

// count is the number of directives of ds, nested ones included.
func count(ds []directive) int {
	n := len(ds)
	for _, d := range ds {
		n += count(d.Block)
	}
	return n
}
