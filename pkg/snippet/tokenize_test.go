package snippet

import (
	"reflect"
	"testing"
)

func TestTokenize(t *testing.T) {
	type tok struct {
		text   string
		quoted bool
		line   int
	}
	cases := []struct {
		name string
		in   string
		want []tok
	}{
		{"words and semicolons", "a b;\nc;", []tok{{"a", false, 1}, {"b", false, 1}, {";", false, 1}, {"c", false, 2}, {";", false, 2}}},
		{"double quotes keep ; and spaces", `add_header X "1; mode=block";`, []tok{{"add_header", false, 1}, {"X", false, 1}, {"1; mode=block", true, 1}, {";", false, 1}}},
		{"single quotes hold double quotes", `sub_filter '</head>' '<a href="x">';`, []tok{{"sub_filter", false, 1}, {"</head>", true, 1}, {`<a href="x">`, true, 1}, {";", false, 1}}},
		{"escaped quote", `x "a\"b" 'c\'d';`, []tok{{"x", false, 1}, {`a"b`, true, 1}, {"c'd", true, 1}, {";", false, 1}}},
		{"backslash n becomes a newline", `x "a\nb";`, []tok{{"x", false, 1}, {"a\nb", true, 1}, {";", false, 1}}},
		{"other escapes stay", `x a\d;`, []tok{{"x", false, 1}, {`a\d`, false, 1}, {";", false, 1}}},
		{"escaped semicolon stays in a word, backslash kept", `x a\;b;`, []tok{{"x", false, 1}, {`a\;b`, false, 1}, {";", false, 1}}},
		{"comment to end of line", "a; # b; }\nc;", []tok{{"a", false, 1}, {";", false, 1}, {"c", false, 2}, {";", false, 2}}},
		{"hash inside a word", "a b#c;", []tok{{"a", false, 1}, {"b#c", false, 1}, {";", false, 1}}},
		{"braces", "location /x {\n  deny all;\n}", []tok{{"location", false, 1}, {"/x", false, 1}, {"{", false, 1}, {"deny", false, 2}, {"all", false, 2}, {";", false, 2}, {"}", false, 3}}},
		{"variable braces stay in a word", "x ${host}a;", []tok{{"x", false, 1}, {"${host}a", false, 1}, {";", false, 1}}},
		{"close brace inside a word", "x a}b;", []tok{{"x", false, 1}, {"a}b", false, 1}, {";", false, 1}}},
		{"multi-line quoted value starts on its line", "x 'a\nb' c;", []tok{{"x", false, 1}, {"a\nb", true, 1}, {"c", false, 2}, {";", false, 2}}},
		{"empty quoted", `x "";`, []tok{{"x", false, 1}, {"", true, 1}, {";", false, 1}}},
		{"a Lua block is skipped", "access_by_lua_block { local t = {a=1}\n ngx.exit(403) }\nx;", []tok{{"access_by_lua_block", false, 1}, {"{", false, 1}, {"}", false, 2}, {"x", false, 3}, {";", false, 3}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Tokenize(c.in)
			if err != nil {
				t.Fatal(err)
			}
			var g []tok
			for _, x := range got {
				g = append(g, tok{x.Text, x.Quoted, x.Line})
			}
			if !reflect.DeepEqual(g, c.want) {
				t.Errorf("Tokenize(%q)\n got %v\nwant %v", c.in, g, c.want)
			}
		})
	}
}

func TestTokenizeErrors(t *testing.T) {
	cases := []struct {
		in   string
		line int
	}{
		{`x "abc;`, 1},
		{"a;\nx 'abc", 2},
		{`x "a"b;`, 1},
	}
	for _, c := range cases {
		_, err := Tokenize(c.in)
		se, ok := err.(*SyntaxError)
		if !ok {
			t.Errorf("Tokenize(%q) = %v, want a SyntaxError", c.in, err)
			continue
		}
		if se.Line != c.line {
			t.Errorf("Tokenize(%q): line %d, want %d", c.in, se.Line, c.line)
		}
	}
}
