package update

import "time"

// The schedule.
const (
	// Interval is the least time between two checks: at most one a day, whatever came of
	// the last one (a feed that is down is asked again the next day, not every minute).
	Interval = 24 * time.Hour
	// FirstDelay is how long after the app starts the first check may run: the start (often
	// at login, before the network is up) is left alone.
	FirstDelay = time.Minute
	// Poll is how often the checker wakes to see whether a check is due, so a computer that
	// slept through the due time checks soon after it wakes.
	Poll = time.Hour
)

// Due reports whether a check is due at now, the last one having been at last (zero: never).
// A last check in the future means the clock was set back: it is trusted for one Interval
// (a small correction must not cause an extra check) and ignored beyond that, so a clock that
// was once far ahead cannot stop the checks for good.
func Due(now, last time.Time) bool {
	if last.IsZero() {
		return true
	}
	if now.Before(last) {
		return last.Sub(now) > Interval
	}
	return now.Sub(last) >= Interval
}
