package sqlite

import (
	"context"
	"testing"
)

func TestSeenIsRememberedAcrossReopensWithoutTouchingTheSettingsRevision(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, dir)
	ctx := context.Background()
	if seen, err := s.Seen(ctx, "pill_hint"); err != nil || seen {
		t.Fatalf("fresh store: Seen = %v, %v; want false, nil", seen, err)
	}
	before, err := s.revisions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.MarkSeen(ctx, "pill_hint"); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkSeen(ctx, "pill_hint"); err != nil {
		t.Fatalf("marking twice: %v", err)
	}
	after, err := s.revisions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("MarkSeen bumped the revisions %+v -> %+v; the settings window would reload for nothing", before, after)
	}
	if seen, _ := s.Seen(ctx, "demo_guide"); seen {
		t.Error("another name reads as seen")
	}
	s.Close()

	s = openAt(t, dir)
	if seen, err := s.Seen(ctx, "pill_hint"); err != nil || !seen {
		t.Fatalf("after reopening: Seen = %v, %v; want true", seen, err)
	}
	if _, err := s.Settings(ctx); err != nil {
		t.Fatalf("settings after a seen mark: %v", err)
	}
	for _, bad := range []string{"", "Pill", "a.b", "settings\x00"} {
		if _, err := s.Seen(ctx, bad); err == nil {
			t.Errorf("Seen(%q) accepted a bad name", bad)
		}
		if err := s.MarkSeen(ctx, bad); err == nil {
			t.Errorf("MarkSeen(%q) accepted a bad name", bad)
		}
	}
}
