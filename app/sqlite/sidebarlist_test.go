package sqlite

import (
	"context"
	"fmt"
	"reflect"
	"testing"
)

func TestTheKeptSidebarListSurvivesAReopenWithoutTouchingTheSettingsRevision(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, dir)
	ctx := context.Background()
	if m, err := s.SidebarList(ctx); err != nil || m != nil {
		t.Fatalf("fresh store: SidebarList = %v, %v; want nil, nil", m, err)
	}
	before, err := s.revisions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveSidebarList(ctx, map[string]string{"c1": "aa", "c2": "bb"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"c1": "cc", "c3": "dd"}
	if err := s.SaveSidebarList(ctx, want); err != nil {
		t.Fatalf("saving again: %v", err)
	}
	if after, _ := s.revisions(ctx); after != before {
		t.Errorf("SaveSidebarList bumped the revisions %+v -> %+v; the settings window would reload for nothing", before, after)
	}
	s.Close()

	s = openAt(t, dir)
	if got, err := s.SidebarList(ctx); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("after reopening: SidebarList = %v, %v; want the last list saved, %v", got, err, want)
	}
	if _, err := s.Settings(ctx); err != nil {
		t.Fatalf("settings next to a kept list: %v", err)
	}
	big := map[string]string{}
	for i := range maxSidebarList + 1 {
		big[fmt.Sprint(i)] = "x"
	}
	if err := s.SaveSidebarList(ctx, big); err == nil {
		t.Error("a list over the limit was kept")
	}
}
