package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// The escape sequences of lint's colours (diff's are textdiff.ANSI).
const (
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiReset  = "\x1b[0m"
)

// colorWanted decides --color: always, never, or auto, which colours a
// terminal unless NO_COLOR is set (https://no-color.org) or TERM is dumb.
func colorWanted(mode string, w io.Writer, getenv func(string) string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return isTerminal(w) && plainTerminalOK(getenv)
}

// plainTerminalOK is false when the environment asks for no escape
// sequences: NO_COLOR set to anything, or TERM=dumb.
func plainTerminalOK(getenv func(string) string) bool {
	return getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// progressDelay is how long work runs before a progress line shows.
const progressDelay = 2 * time.Second

// startProgress shows "msg… N s" on w, rewritten each second, once the work
// has run for progressDelay, when w is a terminal that takes escape-free
// carriage returns (not TERM=dumb); else it writes nothing. stop ends it
// and clears the line.
func startProgress(w io.Writer, msg string) (stop func()) {
	if !isTerminal(w) || os.Getenv("TERM") == "dumb" {
		return func() {}
	}
	return progress(w, msg, progressDelay, time.Second)
}

// progress is startProgress without the terminal check (tests).
func progress(w io.Writer, msg string, delay, every time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		timer := time.NewTimer(delay)
		defer timer.Stop()
		select {
		case <-done:
			return
		case <-timer.C:
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		width := 0
		for {
			line := fmt.Sprintf("%s… %d s", msg, int(time.Since(start).Seconds()))
			width = max(width, len(line))
			fmt.Fprintf(w, "\r%-*s", width, line)
			select {
			case <-done:
				fmt.Fprintf(w, "\r%*s\r", width, "")
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done); wg.Wait() })
	}
}
