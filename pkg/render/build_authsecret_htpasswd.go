package render

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// The htpasswd file of basic authentication, rebuilt by us from the Secret
// line by line: only "user:hash" lines that nginx can verify reach the
// file, so no value can add a line, a comment or a line nginx would fail
// on (nginx answers 500 when crypt(3) does not know a hash).
//
// nginx (ngx_http_auth_basic_module, ngx_crypt.c) reads "user:hash" lines
// (a line starting with '#' is a comment; the hash ends at ':', CR or LF)
// and verifies: {PLAIN}password, {SHA}base64(sha1), {SSHA}base64(sha1 +
// salt), $apr1$ (Apache MD5, its own code), and anything else through the
// system's crypt(3): Debian's libxcrypt takes DES (13 characters), $1$
// (MD5), $5$ (SHA-256), $6$ (SHA-512), $2a$/$2b$/$2y$ (bcrypt) and $y$
// (yescrypt).

var (
	cryptChars  = `[./0-9A-Za-z]`
	hashPattern = regexp.MustCompile(`^(?:` +
		`\$apr1\$` + cryptChars + `{0,8}\$` + cryptChars + `{22}` +
		`|\$1\$` + cryptChars + `{0,8}\$` + cryptChars + `{22}` +
		`|\$5\$(?:rounds=[0-9]{1,9}\$)?` + cryptChars + `{0,16}\$` + cryptChars + `{43}` +
		`|\$6\$(?:rounds=[0-9]{1,9}\$)?` + cryptChars + `{0,16}\$` + cryptChars + `{86}` +
		`|\$2[aby]\$[0-9]{2}\$` + cryptChars + `{53}` +
		`|\$y\$` + cryptChars + `+\$` + cryptChars + `+\$` + cryptChars + `+` +
		`|` + cryptChars + `{13}` +
		`)$`)
)

// checkPasswordHash says why nginx could not verify a password against
// hash, "" when it can.
func checkPasswordHash(hash string) string {
	switch {
	case strings.HasPrefix(hash, "{PLAIN}"):
		if len(hash) == len("{PLAIN}") {
			return "an empty {PLAIN} password"
		}
		return ""
	case strings.HasPrefix(hash, "{SHA}"):
		if d, err := base64.StdEncoding.DecodeString(hash[len("{SHA}"):]); err != nil || len(d) != 20 {
			return "a {SHA} hash that is not the base64 of 20 bytes"
		}
		return ""
	case strings.HasPrefix(hash, "{SSHA}"):
		if d, err := base64.StdEncoding.DecodeString(hash[len("{SSHA}"):]); err != nil || len(d) <= 20 {
			return "a {SSHA} hash that is not the base64 of 20 bytes and a salt"
		}
		return ""
	case hashPattern.MatchString(hash):
		return ""
	}
	return "a password hash nginx cannot verify (use htpasswd: bcrypt -B, apr1 -m, SHA-512 crypt, or {SHA}/{SSHA}/{PLAIN})"
}

// checkHTPasswdUser says why user cannot be an htpasswd user, "" when it can.
func checkHTPasswdUser(user string) string {
	switch {
	case user == "":
		return "an empty user name"
	case strings.HasPrefix(user, "#"):
		return "a user name starting with '#' (nginx reads a comment)"
	case len(user) > 255:
		return "a user name longer than 255 bytes"
	}
	for i := 0; i < len(user); i++ {
		if c := user[i]; c < ' ' || c == 0x7f || c == ':' {
			return "a user name with ':' or a control character"
		}
	}
	return ""
}

// htpasswdEntry is one user of the file.
type htpasswdEntry struct{ user, hash string }

// parseAuthFile reads the "auth" key of an auth-file Secret: htpasswd
// lines (CRLF or LF), blank lines and '#' comments skipped. It returns the
// valid entries and one message per refused line (by number: a message
// never quotes a hash).
func parseAuthFile(data []byte) ([]htpasswdEntry, []string) {
	var entries []htpasswdEntry
	var bad []string
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		user, hash, found := strings.Cut(line, ":")
		if !found {
			bad = append(bad, fmt.Sprintf("line %d is not user:hash", i+1))
			continue
		}
		// nginx ends the hash at ':' (an Apache "user:hash:comment" line).
		hash, _, _ = strings.Cut(hash, ":")
		if why := checkHTPasswdUser(user); why != "" {
			bad = append(bad, fmt.Sprintf("line %d has %s", i+1, why))
			continue
		}
		if why := checkPasswordHash(hash); why != "" {
			bad = append(bad, fmt.Sprintf("line %d (user %q) has %s", i+1, user, why))
			continue
		}
		entries = append(entries, htpasswdEntry{user, hash})
	}
	return entries, bad
}

// parseAuthMap reads an auth-map Secret: each key a user, its value the
// password hash.
func parseAuthMap(data map[string][]byte) ([]htpasswdEntry, []string) {
	users := make([]string, 0, len(data))
	for u := range data {
		users = append(users, u)
	}
	sort.Strings(users)
	var entries []htpasswdEntry
	var bad []string
	for _, user := range users {
		hash := strings.TrimRight(string(data[user]), "\r\n")
		if why := checkHTPasswdUser(user); why != "" {
			bad = append(bad, fmt.Sprintf("key %q has %s", user, why))
			continue
		}
		if strings.ContainsAny(hash, ":\r\n") {
			bad = append(bad, fmt.Sprintf("key %q has a value with ':' or a line break", user))
			continue
		}
		if why := checkPasswordHash(hash); why != "" {
			bad = append(bad, fmt.Sprintf("key %q has %s", user, why))
			continue
		}
		entries = append(entries, htpasswdEntry{user, hash})
	}
	return entries, bad
}

// htpasswdContent writes the entries as the file nginx reads.
func htpasswdContent(entries []htpasswdEntry) []byte {
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.user)
		b.WriteByte(':')
		b.WriteString(e.hash)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}
