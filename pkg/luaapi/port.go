package luaapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Port is a Service port as an Ingress names it: a number ("80") or a port
// name ("http"). Like ingress-nginx's intstr.IntOrString it is a JSON number
// when it is a number and a JSON string when it is a name. The empty Port
// (the built-in default backend has none) is the number 0, as the zero
// IntOrString of ingress-nginx, and 0 decodes back to the empty Port.
type Port string

// Number returns the port number and true when p is a number.
func (p Port) Number() (int, bool) {
	if p == "" {
		return 0, false
	}
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(string(p))
	if err != nil {
		return 0, false
	}
	return n, true
}

// MarshalJSON encodes numbers as numbers and names as strings.
func (p Port) MarshalJSON() ([]byte, error) {
	if p == "" {
		return []byte("0"), nil
	}
	if n, ok := p.Number(); ok {
		return strconv.AppendInt(nil, int64(n), 10), nil
	}
	return json.Marshal(string(p))
}

// UnmarshalJSON accepts a JSON number or a JSON string.
func (p *Port) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("port: %w", err)
		}
		*p = Port(s)
		return nil
	}
	var n int
	if err := json.Unmarshal(data, &n); err != nil {
		return fmt.Errorf("port: want a number or a string: %w", err)
	}
	if n == 0 {
		*p = ""
		return nil
	}
	*p = Port(strconv.Itoa(n))
	return nil
}
