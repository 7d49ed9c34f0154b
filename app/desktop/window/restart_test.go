package window

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// After WebView2's browser process died Clanker restarts, at most three times in ten
// minutes; older restarts no longer count, and a bad history is ignored, not trusted.
func TestABrowserProcessCrashRestartsTheAppAFewTimesAtMost(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	at := func(ago time.Duration) string { return strconv.FormatInt(now.Add(-ago).Unix(), 10) }
	history := ""
	for i := 0; i < maxRestarts; i++ {
		restart, next := planRestart(history, now)
		if !restart {
			t.Fatalf("crash %d within the window did not restart (history %q)", i+1, history)
		}
		history = next
	}
	if restart, _ := planRestart(history, now); restart {
		t.Fatalf("a crash after %d restarts within %v restarted again; want the app to end with its message", maxRestarts, restartWindow)
	}
	old := strings.Join([]string{at(restartWindow + time.Minute), at(restartWindow + 2*time.Minute), at(time.Hour)}, ",")
	if restart, next := planRestart(old, now); !restart || next != at(0) {
		t.Fatalf("restarts older than %v counted: restart=%v next=%q", restartWindow, restart, next)
	}
	if restart, next := planRestart("garbage,,"+at(time.Minute)+",-x, 99999999999999999999", now); !restart || next != at(time.Minute)+","+at(0) {
		t.Fatalf("a history with garbage: restart=%v next=%q; want the one good entry kept", restart, next)
	}
	future := strconv.FormatInt(now.Add(time.Hour).Unix(), 10)
	if restart, next := planRestart(strings.Repeat(future+",", 5), now); !restart || next != at(0) {
		t.Fatalf("restarts dated in the future counted: restart=%v next=%q", restart, next)
	}
}

// The new process gets the same arguments, with the window hidden exactly when it is
// hidden now.
func TestTheRestartKeepsTheArgumentsAndTheWindowsState(t *testing.T) {
	for _, c := range []struct {
		args   []string
		hidden bool
		want   []string
	}{
		{[]string{"--data-dir", `C:\data`}, false, []string{"--data-dir", `C:\data`}},
		{[]string{"--data-dir", `C:\data`}, true, []string{"--data-dir", `C:\data`, "--hidden"}},
		{[]string{"--hidden"}, false, []string{}},
		{[]string{"-hidden", "demo"}, true, []string{"demo", "--hidden"}},
		{[]string{"--hidden=true", "--hidden=false", "-v"}, false, []string{"-v"}},
		{[]string{"demo", "--", "--hidden"}, true, []string{"demo", "--hidden", "--", "--hidden"}},
		{nil, false, []string{}},
	} {
		if got := restartArgs(c.args, c.hidden); !reflect.DeepEqual(got, c.want) {
			t.Errorf("restartArgs(%q, hidden=%v) = %q, want %q", c.args, c.hidden, got, c.want)
		}
	}
}
