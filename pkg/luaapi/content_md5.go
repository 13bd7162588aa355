package luaapi

import (
	"crypto/md5"
	"encoding/base64"
	"io"
)

// Every payload the Client posts carries its md5 in the Content-MD5
// header (RFC 1864: the base64 of the binary md5). nginx checks it against
// the body it reads; and when it is the md5 of the payload that nginx
// applied last (the one its master preloaded a moment before, after a
// start), nginx answers that payload's result without reading the body at
// all (lua/configuration.lua, read_payload): at 100,000 Ingresses the
// worker no longer buffers 144 MB to a file, reads them into Lua strings
// and keeps them as garbage.
const headerContentMD5 = "Content-MD5"

// contentMD5Of is the Content-MD5 value of a body whose md5 is sum.
func contentMD5Of(sum []byte) string { return base64.StdEncoding.EncodeToString(sum) }

// contentMD5 reads the payload once and returns its Content-MD5 value.
func (o OpenBody) contentMD5() (string, error) {
	r, _, err := o()
	if err != nil {
		return "", err
	}
	defer r.Close()
	h := md5.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return contentMD5Of(h.Sum(nil)), nil
}
