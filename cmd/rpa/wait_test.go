package main

import (
	"testing"
	"time"
)

// waitFor polls cond: the state of another process (what a server lists, a store it writes),
// which tells the test nothing when it changes. It looks every 20 ms; its bound (90 s) only
// catches a hang. detail, if given, describes the state when it fails.
func waitFor(t testing.TB, what string, cond func() bool, detail ...func() string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			msg := "timed out waiting for " + what
			for _, d := range detail {
				msg += "\n" + d()
			}
			t.Fatal(msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
