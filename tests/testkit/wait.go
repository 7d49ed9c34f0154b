// Package testkit holds small helpers that Clanker's test packages share instead of each
// keeping a copy: waiting for a condition, and drawing seeded random event lists for the chaos
// runs. It is test-only code; nothing in the app imports it.
package testkit

import (
	"testing"
	"time"
)

// pollEvery is how often Poll asks again. A condition that holds ends the wait at once, so
// only a failing wait costs its whole timeout.
const pollEvery = 50 * time.Millisecond

// Poll asks cond until it reports true or timeout has passed, and returns whether it came true
// and what cond said last (cond's string describes what it saw, for the failure message).
func Poll(timeout time.Duration, cond func() (bool, string)) (bool, string) {
	deadline := time.Now().Add(timeout)
	for {
		ok, why := cond()
		if ok || time.Now().After(deadline) {
			return ok, why
		}
		time.Sleep(pollEvery)
	}
}

// WaitFor is Poll that fails the test when cond never comes true, saying what it waited for
// and what cond saw last.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	if ok, last := Poll(timeout, cond); !ok {
		t.Fatalf("waited %v for %s; last seen: %s", timeout, what, last)
	}
}

// Until is WaitFor for a condition with nothing to describe.
func Until(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	WaitFor(t, timeout, what, func() (bool, string) { return cond(), "the condition was still false" })
}
