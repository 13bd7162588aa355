package main

import (
	"errors"
	"testing"
)

// The forwarder logs through HandleErrorWithLogger in whatever order its
// goroutines fail; the reported cause must not depend on that order.
func TestErrorRecorderReportsTheCause(t *testing.T) {
	type logged struct{ msg, err string }
	copyFailed := logged{"Error copying from local connection to remote stream", "EOF"}
	refused := logged{"An error occurred forwarding", "error forwarding port 10246 to pod ctrl-e: connection refused"}
	for _, tc := range []struct {
		name string
		logs []logged
		want string
	}{
		{"nothing", nil, ""},
		{"cause first", []logged{refused, copyFailed}, "An error occurred forwarding: error forwarding port 10246 to pod ctrl-e: connection refused"},
		{"copy first", []logged{copyFailed, refused}, "An error occurred forwarding: error forwarding port 10246 to pod ctrl-e: connection refused"},
		{"copy alone", []logged{copyFailed}, "Error copying from local connection to remote stream: EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &errorRecorder{}
			for _, l := range tc.logs {
				r.Error(errors.New(l.err), l.msg)
			}
			got := ""
			if err := r.err(); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("err() = %q, want %q", got, tc.want)
			}
		})
	}
}
