package nginx

import "testing"

func TestParseTestOutput(t *testing.T) {
	for _, tc := range []struct {
		name, out, msg, file string
		line                 int
	}{
		{
			name: "regex with \" in \" in it",
			out:  "nginx: [emerg] pcre2_compile() failed: missing closing parenthesis in \"^/(a\" in /p/nginx.conf.test-12:7\nnginx: configuration file /p/nginx.conf.test-12 test failed",
			msg:  `pcre2_compile() failed: missing closing parenthesis in "^/(a"`, file: "/p/nginx.conf.test-12", line: 7,
		},
		{
			name: "a warning first",
			out:  "nginx: [warn] the \"http2\" parameter is deprecated in /p/c:3\nnginx: [emerg] the duplicate \"uri\" variable in /p/c:40\nnginx: configuration file /p/c test failed",
			msg:  `the duplicate "uri" variable`, file: "/p/c", line: 40,
		},
		{
			name: "no place",
			out:  "nginx: [emerg] could not build server_names_hash, you should increase server_names_hash_bucket_size: 64\nnginx: configuration file /p/c test failed",
			msg:  "could not build server_names_hash, you should increase server_names_hash_bucket_size: 64",
		},
		{
			name: "alert",
			out:  "nginx: [alert] could not open error log file: open() \"/p/logs/error.log\" failed (21: Is a directory)\nnginx: configuration file /p/c test failed",
			msg:  `could not open error log file: open() "/p/logs/error.log" failed (21: Is a directory)`,
		},
		{
			name: "a message ending in a number is no place",
			out:  "nginx: [emerg] host not found in upstream \"x:80\" in\nnginx: configuration file /p/c test failed",
			msg:  `host not found in upstream "x:80" in`,
		},
		{
			name: "no error line",
			out:  "something odd\nnginx: configuration file /p/c test failed",
			msg:  "something odd",
		},
	} {
		msg, file, line := ParseTestOutput(tc.out)
		if msg != tc.msg || file != tc.file || line != tc.line {
			t.Errorf("%s: got (%q, %q, %d), want (%q, %q, %d)", tc.name, msg, file, line, tc.msg, tc.file, tc.line)
		}
	}
}
