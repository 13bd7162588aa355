package main

import (
	"bytes"
	"testing"
)

// Each aspect that can differ between pods is found and shown by itself.
func TestBackendsCompareAspects(t *testing.T) {
	a := `[{"name":"web-80","port":80,"endpoints":[{"address":"10.0.0.1","port":"80"}],"alternativeBackends":["web-canary-80"],
"sessionAffinityConfig":{"name":"cookie","mode":"balanced","cookieSessionAffinity":{"name":"s","path":"/"}}},
{"name":"web-canary-80","port":80,"noServer":true,"trafficShapingPolicy":{"weight":10}}]`
	b := `[{"name":"web-80","port":80,"endpoints":[{"address":"10.0.0.1","port":"80"}],
"sessionAffinityConfig":{"name":"cookie","mode":"balanced","cookieSessionAffinity":{"name":"s","path":"/app","secure":true}}},
{"name":"web-canary-80","port":80,"noServer":true,"trafficShapingPolicy":{"weight":30}}]`
	var answers []podAnswer
	for _, x := range []struct{ pod, body string }{{"p1", a}, {"p2", b}, {"p3", a}} {
		bs, err := decodeBackends([]byte(x.body))
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, podAnswer{Pod: x.pod, backends: bs, all: bs})
	}
	answers = append(answers, podAnswer{Pod: "p4", Error: "did not answer"})
	diffs := compareAnswers(answers)
	var out bytes.Buffer
	if err := printDifferences(&out, diffs); err != nil {
		t.Fatal(err)
	}
	want := `  web-80: canary
    p1  alternatives web-canary-80
    p2  alternatives -
    p3  alternatives web-canary-80
  web-80: settings
    p1  sessionAffinityConfig={"name":"","mode":"","cookieSessionAffinity":{"name":"","path":"/"}}
    p2  sessionAffinityConfig={"name":"","mode":"","cookieSessionAffinity":{"name":"","path":"/app","secure":true}}
    p3  sessionAffinityConfig={"name":"","mode":"","cookieSessionAffinity":{"name":"","path":"/"}}
  web-canary-80: canary
    p1  alternatives -; canary: weight 10%
    p2  alternatives -; canary: weight 30%
    p3  alternatives -; canary: weight 10%
`
	if out.String() != want {
		t.Errorf("differences:\n%s\nwant:\n%s", out.String(), want)
	}
	if got := compareAnswers(answers[:1]); len(got) != 0 {
		t.Errorf("one pod: %v", got)
	}
}
