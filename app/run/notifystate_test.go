package run

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/sqlite"
)

func TestNotificationStateChangesOnlyWhenTheSystemsAnswerDoes(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	st, changed := nextNotifyState(notifyState{}, nil, t0)
	if changed || st.Refused {
		t.Fatalf("a shown notification with nothing refused before changed the state: %+v", st)
	}
	refused := errors.New("Notifications are not allowed for this application")
	st, changed = nextNotifyState(st, refused, t0)
	if !changed || !st.Refused || st.Reason != refused.Error() || !st.At.Equal(t0) {
		t.Fatalf("a refusal: %+v changed=%v", st, changed)
	}
	if _, changed := nextNotifyState(st, refused, t0.Add(time.Minute)); changed {
		t.Fatal("the same refusal again was written again")
	}
	st2, changed := nextNotifyState(st, errors.New("another reason"), t0.Add(time.Minute))
	if !changed || st2.Reason != "another reason" {
		t.Fatalf("a new reason was not recorded: %+v", st2)
	}
	cleared, changed := nextNotifyState(st2, nil, t0.Add(time.Hour))
	if !changed || cleared.Refused || cleared.Reason != "" {
		t.Fatalf("a notification shown after a refusal did not clear it: %+v", cleared)
	}
	long, _ := nextNotifyState(notifyState{}, errors.New(strings.Repeat("x", 5000)), t0)
	if n := len([]rune(long.Reason)); n > maxNotifyReason+3 {
		t.Fatalf("a %d-character reason was kept whole", n)
	}
}

// `clanker diag` runs in a process of its own: it learns from the file the app writes
// that the system refused notifications, and says so; once one is shown again, it does
// not.
func TestDiagSaysWhenTheSystemRefusedNotifications(t *testing.T) {
	dir := t.TempDir()
	a := &App{dir: dir, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	a.recordNotify(errors.New("UNErrorDomain error 1: Notifications are not allowed for this application"))

	s, err := sqlite.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	diag := func() string {
		b, err := DiagnosticsJSON(context.Background(), s, "test", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if out := diag(); !strings.Contains(out, "the system refused or could not show Clanker's notifications") ||
		!strings.Contains(out, "Notifications are not allowed for this application") {
		t.Fatalf("the report does not say the system refused notifications:\n%s", out)
	}
	info, err := os.Stat(filepath.Join(dir, notifyStateFile))
	if err != nil {
		t.Fatal(err)
	}
	before := info.ModTime()
	a.recordNotify(errors.New("UNErrorDomain error 1: Notifications are not allowed for this application"))
	if info, _ := os.Stat(filepath.Join(dir, notifyStateFile)); !info.ModTime().Equal(before) {
		t.Error("the same refusal rewrote the file")
	}
	a.recordNotify(nil)
	if out := diag(); strings.Contains(out, "refused or could not show") {
		t.Fatalf("the report still says notifications were refused after one was shown:\n%s", out)
	}
}
