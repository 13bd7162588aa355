package model

import "sort"

// File is a file that nginx reads from disk and that the controller writes
// from a Secret: an htpasswd file, a CA bundle, a CRL, a client
// certificate and key for a backend. Names are made by render from the
// Secret's UID (never from a user-given path: CVE-2025-24513), so that no
// value of an object can name a path outside the files directory.
//
// nginx reads these files at two moments, which decides the name:
//
//   - at request time (ReadAtLoad false): auth_basic_user_file is opened
//     by a worker for every request that needs it (ngx_http_auth_basic_module
//     opens and reads the file in its access handler). Its name is stable
//     (the Secret's UID), so an edit of the Secret replaces the file's
//     content and takes effect without a reload.
//   - at config load (ReadAtLoad true): ssl_client_certificate, ssl_crl,
//     proxy_ssl_trusted_certificate, proxy_ssl_certificate and
//     proxy_ssl_certificate_key (without variables) are read by the master
//     when it loads nginx.conf, into the SSL contexts it builds then. A new
//     content on disk is ignored until the next reload, so the name carries
//     a digest of the content: a rotated CA changes nginx.conf, and the
//     loop reloads.
type File struct {
	// Name is the slash-separated path below FilesDir, e.g.
	// "auth/0b6c….htpasswd": only lower-case letters, digits, '-', '.'
	// and one '/' after a directory name (see ValidFileName).
	Name string
	// Content is the bytes of the file.
	Content []byte
	// ReadAtLoad is true for a file that the nginx master reads when it
	// loads nginx.conf (see above); false for one a worker reads per
	// request, which must be readable by the worker user.
	ReadAtLoad bool
	// Private is true when Content holds a private key: render does not
	// print it (as servers.json never holds private keys).
	Private bool
	// Secret is the Secret the file comes from, for messages and diff.
	Secret ObjectRef
}

// FilesDir is the directory, relative to the nginx prefix (where
// nginx.conf is: lua/CONTRACT.md), under which the Files are written.
// nginx.conf names each file by FilePath: a relative path, which nginx
// resolves against the directory of nginx.conf, so the same bytes run in
// a container, under a temp dir in tests and in `render -o DIR`.
const FilesDir = "files"

// FilePath is the path of the File name as nginx.conf writes it.
func FilePath(name string) string { return FilesDir + "/" + name }

// ValidFileName reports whether name is a name render makes: a directory
// and a file name, each of lower-case letters, digits, '-' and '.', not
// starting with '.', joined by one '/'.
func ValidFileName(name string) bool {
	dir, file, ok := cutSlash(name)
	return ok && validFileComponent(dir) && validFileComponent(file)
}

func cutSlash(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}

func validFileComponent(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// File returns the file called name, or nil.
func (c *Config) File(name string) *File {
	i := sort.Search(len(c.Files), func(i int) bool { return c.Files[i].Name >= name })
	if i < len(c.Files) && c.Files[i].Name == name {
		return &c.Files[i]
	}
	return nil
}

// SortFiles sorts files by Name.
func SortFiles(files []File) {
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
}
