package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

const (
	salvageConversations = 40
	salvageUsageRows     = 30
	salvageKey           = "sk-salvage-test-0123456789"
)

func salvageConvID(i int) string { return fmt.Sprintf("conv-%02d", i) }

func salvageMode(i int) engine.Mode {
	if i%2 == 0 {
		return engine.ModeActive
	}
	return engine.ModeAvailable
}

// salvageSummary is long enough that the conversations span many pages (three or four
// rows a page), and unique per conversation so a test can find the page a row is on.
func salvageSummary(i int) string {
	return fmt.Sprintf("memory of %s|", salvageConvID(i)) + strings.Repeat("x", 1000)
}

// makeSalvageDB builds a database holding everything salvage looks for: settings, the API
// key kept in the file (no keychain), 40 conversations with modes and memory, and usage rows.
// It returns the file's path, closed and checkpointed.
func makeSalvageDB(t *testing.T, dir string) string {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Secrets = nil
	ctx := context.Background()
	st := engine.DefaultSettings()
	st.UserName, st.Model, st.Endpoint, st.HistorySize = "Ann", "salvage-model", "https://api.example.com/v1", 77
	if _, err := s.SaveSettings(ctx, st); err != nil {
		t.Fatal(err)
	}
	if loc, err := s.SetAPIKey(ctx, salvageKey); err != nil || loc != engine.KeyDatabase {
		t.Fatalf("set API key: %v %v", loc, err)
	}
	for i := range salvageConversations {
		id := salvageConvID(i)
		if err := s.SaveMemory(ctx, id, engine.Memory{Summary: salvageSummary(i), Customization: "be brief"}); err != nil {
			t.Fatal(err)
		}
		if err := s.SetMode(ctx, id, salvageMode(i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range salvageUsageRows {
		u := engine.Usage{Conversation: engine.ConversationID(salvageConvID(i)), Model: "salvage-model", Tokens: engine.Tokens{Prompt: 100, Completion: int64(i)}, At: t0.Add(time.Duration(i) * time.Minute)}
		if err := s.RecordUsage(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, FileName)
}

func pageSize(t *testing.T, b []byte) int {
	t.Helper()
	n := int(binary.BigEndian.Uint16(b[16:18]))
	if n == 1 {
		n = 65536
	}
	if n < 512 {
		t.Fatalf("bad page size %d in the test database", n)
	}
	return n
}

// pageHolding returns the 1-based number of the b-tree leaf page that holds marker (a page of
// the wanted type, so a stale copy on a free page is not taken by mistake).
func pageHolding(t *testing.T, b []byte, marker string, pageType byte) int {
	t.Helper()
	ps := pageSize(t, b)
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte(marker))
		if i < 0 {
			t.Fatalf("no %#x page holds %q", pageType, marker)
		}
		at := off + i
		page := at/ps + 1
		hdr := (page - 1) * ps
		if page == 1 {
			hdr = 100
		}
		if b[hdr] == pageType {
			return page
		}
		off = at + 1
	}
}

// rootPage reads the root page of a table or index from the healthy file.
func rootPage(t *testing.T, path, name string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name = ?`, name).Scan(&n); err != nil {
		t.Fatalf("root page of %s: %v", name, err)
	}
	return n
}

// breakPage overwrites the b-tree page type byte of page with a value no page has, which
// SQLite reports as corruption as soon as it reads that page.
func breakPage(t *testing.T, path string, page int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	off := (page - 1) * pageSize(t, b)
	if page == 1 {
		off = 100
	}
	b[off] ^= 0xff
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedDatabaseIsSalvagedIntoTheNewOne damages a database in several ways and checks
// what Open carries into the new one, and that what it says about it is true.
func TestDamagedDatabaseIsSalvagedIntoTheNewOne(t *testing.T) {
	type want struct {
		settings, key bool
		allConvs      bool // every conversation, else some but not all
		allUsage      bool
		missing       string   // a conversation on the damaged part, which cannot come back
		lost          []string // phrases the message must contain
	}
	cases := []struct {
		name   string
		damage func(t *testing.T, path string)
		want   want
	}{
		{"flipped byte in a conversations page", func(t *testing.T, path string) {
			b, _ := os.ReadFile(path)
			breakPage(t, path, pageHolding(t, b, "memory of "+salvageConvID(17)+"|", 0x0d))
		}, want{settings: true, key: true, allUsage: true, missing: salvageConvID(17), lost: []string{"some conversations' modes and memory"}}},
		{"flipped byte in the settings page", func(t *testing.T, path string) {
			b, _ := os.ReadFile(path)
			breakPage(t, path, pageHolding(t, b, `"userName":"Ann"`, 0x0a))
		}, want{allConvs: true, allUsage: true, lost: []string{"your settings", "the API key"}}},
		{"damaged index", func(t *testing.T, path string) {
			breakPage(t, path, rootPage(t, path, "conversations_last_seen"))
		}, want{settings: true, key: true, allConvs: true, allUsage: true}},
		{"garbage header", func(t *testing.T, path string) {
			b, _ := os.ReadFile(path)
			copy(b[:100], bytes.Repeat([]byte("garbage!"), 13))
			os.WriteFile(path, b, 0o600)
		}, want{settings: true, key: true, allConvs: true, allUsage: true}},
		{"truncated file", func(t *testing.T, path string) {
			b, _ := os.ReadFile(path)
			// Cut inside the conversations: the settings sit on an early page.
			cut := pageHolding(t, b, "memory of "+salvageConvID(25)+"|", 0x0d) * pageSize(t, b)
			os.WriteFile(path, b[:cut], 0o600)
		}, want{settings: true, key: true, missing: salvageConvID(39), lost: []string{"some conversations' modes and memory"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := makeSalvageDB(t, dir)
			c.damage(t, path)
			damaged, _ := os.ReadFile(path)
			s, err := Open(dir)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer s.Close()
			s.Secrets = nil
			rec := s.Recovery()
			if rec == nil {
				t.Fatal("the damage was not noticed")
			}
			if kept, err := os.ReadFile(rec.MovedTo); err != nil || !bytes.Equal(kept, damaged) {
				t.Errorf("the damaged file was not kept byte for byte at %s (%v)", rec.MovedTo, err)
			}
			sv, msg := rec.Salvaged, rec.Message()
			t.Logf("%s\n%s", rec.Reason, msg)
			ctx := context.Background()

			st, err := s.Settings(ctx)
			if got := err == nil && st.UserName == "Ann" && st.HistorySize == 77 && st.Model == "salvage-model"; got != c.want.settings || sv.Settings != c.want.settings {
				t.Errorf("settings carried over = %v (reported %v, %+v, %v), want %v", got, sv.Settings, st, err, c.want.settings)
			}
			key, loc, _ := s.APIKey(ctx)
			if got := key == salvageKey && loc == engine.KeyDatabase; got != c.want.key || sv.APIKey != c.want.key {
				t.Errorf("API key carried over = %v (reported %v), want %v", got, sv.APIKey, c.want.key)
			}

			convs, err := s.Conversations(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(convs) != sv.Conversations {
				t.Errorf("reported %d conversations saved, the new database has %d", sv.Conversations, len(convs))
			}
			for _, cv := range convs {
				var i int
				if _, err := fmt.Sscanf(string(cv.ID), "conv-%d", &i); err != nil {
					t.Fatalf("unexpected conversation %q", cv.ID)
				}
				if cv.Mode != salvageMode(i) || cv.Memory.Summary != salvageSummary(i) || cv.Memory.Customization != "be brief" {
					t.Errorf("%s came over changed: mode %s, summary %d bytes", cv.ID, cv.Mode, len(cv.Memory.Summary))
				}
			}
			if c.want.missing != "" {
				if cv, _, _ := s.Conversation(ctx, c.want.missing); cv.Memory.Summary != "" {
					t.Errorf("%s was on the damaged part but came back with its memory", c.want.missing)
				}
			}
			switch {
			case c.want.allConvs && len(convs) != salvageConversations:
				t.Errorf("want all %d conversations saved, got %d", salvageConversations, len(convs))
			case !c.want.allConvs && (len(convs) == 0 || len(convs) == salvageConversations):
				t.Errorf("want some but not all conversations saved, got %d of %d", len(convs), salvageConversations)
			}
			totals, err := s.UsageByConversation(ctx, t0.Add(-time.Hour), t0.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if c.want.allUsage && (len(totals) != salvageUsageRows || sv.Usage != salvageUsageRows) {
				t.Errorf("want all %d usage rows saved, got %d conversations' totals (reported %d)", salvageUsageRows, len(totals), sv.Usage)
			}

			if len(c.want.lost) == 0 && len(sv.Lost) > 0 {
				t.Errorf("nothing should be reported lost, got %q", sv.Lost)
			}
			if len(c.want.lost) > 0 && !strings.Contains(msg, "Could not be read") {
				t.Errorf("the message does not say what was lost: %s", msg)
			}
			for _, l := range c.want.lost {
				if !strings.Contains(msg, l) {
					t.Errorf("the message does not mention %q: %s", l, msg)
				}
			}
			if !strings.Contains(msg, rec.MovedTo) {
				t.Errorf("the message does not say where the old file is: %s", msg)
			}
			if c.want.settings && !strings.Contains(msg, "your settings") {
				t.Errorf("the message does not say the settings were saved: %s", msg)
			}

			// The salvaged data is a normal database now: writable, and not recovered again.
			if err := s.SetMode(ctx, "after", engine.ModeActive); err != nil {
				t.Fatalf("the new database is not usable: %v", err)
			}
			s.Close()
			again, err := Open(dir)
			if err != nil || again.Recovery() != nil {
				t.Fatalf("reopening the salvaged database: %v, recovery %+v", err, again.Recovery())
			}
			again.Close()
		})
	}
}

// A file with nothing readable in it still gets a fresh database, and the message says
// nothing could be saved rather than claiming anything was.
func TestUnreadableFileSalvagesNothingAndSaysSo(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FileName), bytes.Repeat([]byte("not a database! "), 512), 0o600)
	s := openAt(t, dir)
	rec := s.Recovery()
	if rec == nil {
		t.Fatal("garbage was not noticed")
	}
	msg := rec.Message()
	if strings.Contains(msg, "Saved from the old one") || !strings.Contains(msg, "Could not be read: everything") {
		t.Errorf("want a message that says nothing could be read, got %q", msg)
	}
}
