package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

func ptr[T any](v T) *T { return &v }

func TestEngineRecordRoundTripsThroughTheFileAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, dir)
	s.Now = (&clock{t: t0}).Now
	rec := engine.Conversation{
		ID:            "c1",
		Mode:          engine.ModeActive,
		LastProcessed: engine.MessageRef{ID: "tmp_42", Sender: "Ann", Text: "hey clanker"},
		LastSeen:      t0.Add(-time.Minute),
		LastMessageAt: t0.Add(-2 * time.Hour),
		LastNewsCheck: t0.Add(-90 * time.Minute),
	}
	if err := s.Engine().SaveConversation(rec); err != nil {
		t.Fatalf("save: %v", err)
	}
	s.Close()

	s2 := openAt(t, dir)
	got, ok, err := s2.Engine().LoadConversation("c1")
	if err != nil || !ok {
		t.Fatalf("load after reopen: ok=%v err=%v, want the saved record", ok, err)
	}
	if got.ID != rec.ID || got.Mode != rec.Mode || got.LastProcessed != rec.LastProcessed ||
		!got.LastSeen.Equal(rec.LastSeen) || !got.LastMessageAt.Equal(rec.LastMessageAt) || !got.LastNewsCheck.Equal(rec.LastNewsCheck) {
		t.Errorf("record after reopen = %+v\nwant %+v", got, rec)
	}
	// The settings-window view reads the same columns.
	c, _, err := s2.Conversation(context.Background(), "c1")
	if err != nil || c.Mode != engine.ModeActive || c.LastProcessed.ID != "tmp_42" || !c.LastMessageAt.Equal(rec.LastMessageAt) || !c.LastNewsCheck.Equal(rec.LastNewsCheck) {
		t.Errorf("Conversation view = %+v (%v); want the engine's mode, pointer and news times", c, err)
	}
}

func TestEngineLoadOfANeverStoredConversationIsNotFoundNotAnError(t *testing.T) {
	s, _ := openTest(t)
	rec, ok, err := s.Engine().LoadConversation("new")
	if ok || err != nil || !reflect.DeepEqual(rec, engine.Conversation{}) {
		t.Errorf("load unknown = %+v, ok=%v, err=%v; want zero record, ok=false, no error", rec, ok, err)
	}
}

func TestEngineSaveNeverMovesLastSeenBackAndTreatsZeroAsNow(t *testing.T) {
	s, clk := openTest(t)
	es := s.Engine()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// A tray mode change for a conversation not on screen carries no LastSeen.
	must(es.SaveConversation(engine.Conversation{ID: "tray", Mode: engine.ModeAvailable}))
	got, _, _ := es.LoadConversation("tray")
	if !got.LastSeen.Equal(t0) {
		t.Errorf("zero LastSeen stored as %v, want now (%v) so housekeeping keeps it", got.LastSeen, t0)
	}
	must(es.SaveConversation(engine.Conversation{ID: "c", Mode: engine.ModeActive, LastSeen: t0}))
	clk.t = t0.Add(time.Hour)
	must(es.SaveConversation(engine.Conversation{ID: "c", Mode: engine.ModeActive, LastSeen: t0.Add(-24 * time.Hour)}))
	if got, _, _ := es.LoadConversation("c"); !got.LastSeen.Equal(t0) {
		t.Errorf("older LastSeen overwrote a newer one: %v, want %v", got.LastSeen, t0)
	}
}

func TestEngineSaveLeavesMemoryAndModelOverrideAlone(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	if err := s.SaveMemory(ctx, "c", engine.Memory{Summary: "sum", Customization: "pirate", Profiles: map[string]string{"Ann": "tea"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetModelOverride(ctx, "c", "special"); err != nil {
		t.Fatal(err)
	}
	if err := s.Engine().SaveConversation(engine.Conversation{ID: "c", Mode: engine.ModeAvailable, LastSeen: t0}); err != nil {
		t.Fatal(err)
	}
	c, _, _ := s.Conversation(ctx, "c")
	if c.Mode != engine.ModeAvailable || c.Memory.Summary != "sum" || c.Memory.Customization != "pirate" || c.Memory.Profiles["Ann"] != "tea" || c.ModelOverride != "special" {
		t.Errorf("after an engine save: %+v; want mode available with memory and override intact", c)
	}
}

func TestEngineSaveRefusesBadRecordsAndWritesNothing(t *testing.T) {
	s, _ := openTest(t)
	es := s.Engine()
	cases := map[string]engine.Conversation{
		"uninitialized is not storable": {ID: "c", Mode: engine.ModeUninitialized},
		"unknown mode":                  {ID: "c", Mode: "bogus"},
		"empty id":                      {Mode: engine.ModeActive},
		"huge id":                       {ID: engine.ConversationID(strings.Repeat("i", MaxIDLength+1)), Mode: engine.ModeActive},
		"huge last message":             {ID: "c", Mode: engine.ModeActive, LastProcessed: engine.MessageRef{Text: strings.Repeat("t", MaxTextBytes+1)}},
	}
	for name, rec := range cases {
		if err := es.SaveConversation(rec); err == nil {
			t.Errorf("%s: saved, want an error", name)
		}
	}
	if _, ok, _ := es.LoadConversation("c"); ok {
		t.Errorf("a refused save created conversation c")
	}
	if _, _, err := es.LoadConversation(""); err == nil {
		t.Errorf("load with an empty id: no error, want one")
	}
}

func TestEngineApplyContextFollowsTheContextUpdateContract(t *testing.T) {
	start := engine.Memory{Summary: "old sum", Customization: "pirate", Profiles: map[string]string{"Ann": "tea"}}
	cases := []struct {
		name string
		upd  engine.ContextUpdate
		want engine.Memory
	}{
		{"nothing set changes nothing", engine.ContextUpdate{}, start},
		{"empty summary is ignored", engine.ContextUpdate{Summary: ptr("")}, start},
		{"summary replaces", engine.ContextUpdate{Summary: ptr("new sum")},
			engine.Memory{Summary: "new sum", Customization: "pirate", Profiles: map[string]string{"Ann": "tea"}}},
		{"customization set", engine.ContextUpdate{CustomizationSet: true, Customization: ptr("formal")},
			engine.Memory{Summary: "old sum", Customization: "formal", Profiles: map[string]string{"Ann": "tea"}}},
		{"customization cleared by nil", engine.ContextUpdate{CustomizationSet: true},
			engine.Memory{Summary: "old sum", Profiles: map[string]string{"Ann": "tea"}}},
		{"customization pointer without Set is ignored", engine.ContextUpdate{Customization: ptr("x")}, start},
		{"profiles replace", engine.ContextUpdate{ProfilesSet: true, Profiles: map[string]string{"Bo": "chess"}},
			engine.Memory{Summary: "old sum", Customization: "pirate", Profiles: map[string]string{"Bo": "chess"}}},
		{"profiles cleared by nil", engine.ContextUpdate{ProfilesSet: true},
			engine.Memory{Summary: "old sum", Customization: "pirate", Profiles: map[string]string{}}},
		{"profiles cleared by empty", engine.ContextUpdate{ProfilesSet: true, Profiles: map[string]string{}},
			engine.Memory{Summary: "old sum", Customization: "pirate", Profiles: map[string]string{}}},
		{"profiles without Set are ignored", engine.ContextUpdate{Profiles: map[string]string{"Bo": "x"}}, start},
		{"everything at once", engine.ContextUpdate{Summary: ptr("s2"), CustomizationSet: true, Customization: ptr("c2"), ProfilesSet: true, Profiles: map[string]string{"Cy": "p2"}},
			engine.Memory{Summary: "s2", Customization: "c2", Profiles: map[string]string{"Cy": "p2"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := openTest(t)
			ctx := context.Background()
			if err := s.SetMode(ctx, "c", engine.ModeActive); err != nil {
				t.Fatal(err)
			}
			if err := s.SaveMemory(ctx, "c", start); err != nil {
				t.Fatal(err)
			}
			if err := s.Engine().ApplyContext("c", tc.upd); err != nil {
				t.Fatalf("apply: %v", err)
			}
			c, _, _ := s.Conversation(ctx, "c")
			got := c.Memory
			if !reflect.DeepEqual(got, tc.want) || c.Mode != engine.ModeActive {
				t.Errorf("memory = %+v (mode %s)\nwant %+v (mode active)", got, c.Mode, tc.want)
			}
		})
	}
}

func TestEngineApplyContextForAnUnknownConversationCreatesItDeactivated(t *testing.T) {
	s, _ := openTest(t)
	if err := s.Engine().ApplyContext("gone", engine.ContextUpdate{Summary: ptr("late answer")}); err != nil {
		t.Fatal(err)
	}
	c, stored, _ := s.Conversation(context.Background(), "gone")
	if !stored || c.Mode != engine.ModeDeactivated || c.Memory.Summary != "late answer" {
		t.Errorf("conversation = %+v; want stored, deactivated, with the summary", c)
	}
}

func TestEngineApplyContextRefusesOversizedValuesAndKeepsTheOldOnes(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	start := engine.Memory{Summary: "keep", Customization: "keep too", Profiles: map[string]string{"Ann": "tea"}}
	if err := s.SaveMemory(ctx, "c", start); err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("x", MaxTextBytes+1)
	for name, upd := range map[string]engine.ContextUpdate{
		"summary":       {Summary: &huge, CustomizationSet: true},
		"customization": {CustomizationSet: true, Customization: &huge},
		"profiles":      {ProfilesSet: true, Profiles: map[string]string{"Ann": huge}},
	} {
		if err := s.Engine().ApplyContext("c", upd); err == nil || !strings.Contains(err.Error(), "too large") {
			t.Errorf("oversized %s: err = %v, want a 'too large' error", name, err)
		}
	}
	c, _, _ := s.Conversation(ctx, "c")
	if got := c.Memory; !reflect.DeepEqual(got, start) {
		t.Errorf("after refused updates memory = %+v, want unchanged %+v", got, start)
	}
}

func TestEngineMarkSeenMovesStoredRowsForwardAndCreatesNone(t *testing.T) {
	s, clk := openTest(t)
	es := s.Engine()
	if err := es.SaveConversation(engine.Conversation{ID: "known", Mode: engine.ModeActive, LastSeen: t0}); err != nil {
		t.Fatal(err)
	}
	clk.t = t0.Add(48 * time.Hour)
	if err := es.MarkSeen([]engine.ConversationID{"known", "stranger"}, t0.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := es.MarkSeen([]engine.ConversationID{"known"}, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if rec, _, _ := es.LoadConversation("known"); !rec.LastSeen.Equal(t0.Add(24 * time.Hour)) {
		t.Errorf("known last seen = %v, want %v (forward only)", rec.LastSeen, t0.Add(24*time.Hour))
	}
	if _, ok, _ := es.LoadConversation("stranger"); ok {
		t.Errorf("MarkSeen created a row for a conversation that was only visible")
	}
	if err := es.MarkSeen([]engine.ConversationID{""}, t0); err == nil {
		t.Errorf("MarkSeen with an empty id: no error, want one")
	}
}

func TestEngineForgetUnseenAndDeactivateAllWorkOnTheFile(t *testing.T) {
	s, _ := openTest(t)
	es := s.Engine()
	day := 24 * time.Hour
	for id, r := range map[engine.ConversationID]engine.Conversation{
		"old":    {Mode: engine.ModeActive, LastSeen: t0.Add(-40 * day)},
		"recent": {Mode: engine.ModeAvailable, LastSeen: t0.Add(-time.Hour)},
		"off":    {Mode: engine.ModeDeactivated, LastSeen: t0.Add(-time.Hour)},
	} {
		r.ID = id
		if err := es.SaveConversation(r); err != nil {
			t.Fatal(err)
		}
	}
	n, err := es.ForgetUnseen(t0.Add(-30 * day))
	if err != nil || n != 1 {
		t.Errorf("ForgetUnseen = %d (%v), want 1 (old)", n, err)
	}
	if _, ok, _ := es.LoadConversation("old"); ok {
		t.Errorf("old conversation survived ForgetUnseen")
	}
	n, err = es.DeactivateAll()
	if err != nil || n != 1 {
		t.Errorf("DeactivateAll = %d (%v), want 1 (recent)", n, err)
	}
	if rec, _, _ := es.LoadConversation("recent"); rec.Mode != engine.ModeDeactivated {
		t.Errorf("recent mode after DeactivateAll = %s, want deactivated", rec.Mode)
	}
}

func TestUpgradeFrom0002MovesNewsTimesIntoTheEngineColumns(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	raw, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(context.Background(), raw, "0002", time.Now); err != nil {
		t.Fatalf("build 0002 database: %v", err)
	}
	lastMsg := time.Date(2026, 3, 1, 10, 30, 0, 123_000_000, time.UTC)
	lastCheck := time.Date(2026, 3, 1, 11, 0, 0, 0, time.FixedZone("CET", 3600))
	stmts := []string{
		`INSERT INTO conversations (id, mode, last_message_id, news_state, model_override, last_seen, created_at, updated_at)
		 VALUES ('good', 'active', 'm7', '{"lastCheck":"` + lastCheck.Format(time.RFC3339Nano) + `","lastMessage":"` + lastMsg.Format(time.RFC3339Nano) + `"}', 'grok', 5, 1, 1)`,
		`INSERT INTO conversations (id, mode, news_state, last_seen, created_at, updated_at) VALUES ('broken', 'available', 'not json', 5, 1, 1)`,
		`INSERT INTO conversations (id, mode, last_seen, created_at, updated_at) VALUES ('fresh', 'deactivated', 5, 1, 1)`,
	}
	for _, q := range stmts {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("seed 0002 data: %v", err)
		}
	}
	raw.Close()

	s := openAt(t, dir)
	if s.Recovery() != nil {
		t.Fatalf("upgrade treated as damage: %+v", s.Recovery())
	}
	es := s.Engine()
	good, ok, err := es.LoadConversation("good")
	if err != nil || !ok || good.Mode != engine.ModeActive || good.LastProcessed.ID != "m7" ||
		!good.LastMessageAt.Equal(lastMsg) || !good.LastNewsCheck.Equal(lastCheck) || !good.LastSeen.Equal(time.UnixMilli(5)) {
		t.Errorf("upgraded good = %+v (ok %v, %v)\nwant active, m7, last message %v, news check %v", good, ok, err, lastMsg, lastCheck)
	}
	for _, id := range []engine.ConversationID{"broken", "fresh"} {
		rec, ok, err := es.LoadConversation(id)
		if err != nil || !ok || !rec.LastMessageAt.IsZero() || !rec.LastNewsCheck.IsZero() {
			t.Errorf("upgraded %s = %+v (ok %v, %v); want stored with unknown (zero) times", id, rec, ok, err)
		}
	}
	if c, _, _ := s.Conversation(context.Background(), "good"); c.ModelOverride != "grok" {
		t.Errorf("model override lost in the upgrade: %+v", c)
	}
}

// The text a switch left in a compose box survives a reopen (the app's restart), is not
// touched by the engine's own record writes, is cleared by an empty text, and is bounded.
func TestLeftoverTextSurvivesAReopenAndOnlySaveLeftoverChangesIt(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, dir)
	es := s.Engine()
	if err := es.SaveLeftover("c1", ""); err != nil {
		t.Fatalf("clearing the leftover of a conversation never stored: %v", err)
	}
	if _, ok, _ := es.LoadConversation("c1"); ok {
		t.Fatal("clearing a leftover created a conversation row")
	}
	const left = "[clanker] sure, sev"
	if err := es.SaveLeftover("c1", left); err != nil {
		t.Fatalf("save leftover: %v", err)
	}
	rec, ok, err := es.LoadConversation("c1")
	if err != nil || !ok || rec.Leftover != left || rec.Mode != engine.ModeDeactivated {
		t.Fatalf("after saving a leftover for a new conversation: %+v ok=%v err=%v; want the text and Deactivated", rec, ok, err)
	}
	rec.Mode, rec.Leftover = engine.ModeActive, ""
	if err := es.SaveConversation(rec); err != nil {
		t.Fatalf("save conversation: %v", err)
	}
	s.Close()

	s2 := openAt(t, dir)
	es2 := s2.Engine()
	rec, _, err = es2.LoadConversation("c1")
	if err != nil || rec.Leftover != left || rec.Mode != engine.ModeActive {
		t.Fatalf("after reopen: %+v err=%v; want the leftover kept by SaveConversation and mode Active", rec, err)
	}
	if err := es2.SaveLeftover("c1", strings.Repeat("x", 4001)); err == nil {
		t.Error("a leftover longer than a message part was stored")
	}
	if err := es2.SaveLeftover("c1", ""); err != nil {
		t.Fatalf("clear leftover: %v", err)
	}
	if rec, _, _ := es2.LoadConversation("c1"); rec.Leftover != "" || rec.Mode != engine.ModeActive {
		t.Errorf("after clearing: %+v; want no leftover and the mode unchanged", rec)
	}
}

// An upgrade from 0005 takes the modes an earlier version switched on as announced (it
// posted their notices), leaves the others never announced, and starts with no decisions.
func TestUpgradeFrom0005TakesStoredModesAsAnnounced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	raw, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(context.Background(), raw, "0005", time.Now); err != nil {
		t.Fatalf("build 0005 database: %v", err)
	}
	for _, q := range []string{
		`INSERT INTO conversations (id, mode, last_message_id, last_seen, created_at, updated_at) VALUES ('on', 'available', 'm7', 5, 1, 1)`,
		`INSERT INTO conversations (id, mode, last_seen, created_at, updated_at) VALUES ('off', 'deactivated', 5, 1, 1)`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("seed 0005 data: %v", err)
		}
	}
	raw.Close()
	s := openAt(t, dir)
	es := s.Engine()
	on, _, err := es.LoadConversation("on")
	if err != nil || on.Mode != engine.ModeAvailable || on.Announced != engine.ModeAvailable || !on.Decided.IsZero() || !on.NewestAt.IsZero() {
		t.Errorf("upgraded 'on' = %+v (%v); want available, announced available, nothing decided", on, err)
	}
	off, _, err := es.LoadConversation("off")
	if err != nil || off.Announced != engine.ModeDeactivated {
		t.Errorf("upgraded 'off' = %+v (%v); want never announced (read as deactivated)", off, err)
	}
}

// The engine's decision record (decided message, announced mode, newest label time) is
// written with the rest of its record and read back after a reopen.
func TestDecisionRecordSurvivesAReopen(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, dir)
	at := time.Date(2026, 2, 3, 18, 41, 0, 0, time.UTC)
	rec := engine.Conversation{ID: "c1", Mode: engine.ModeAvailable, Announced: engine.ModeAvailable,
		Decided: engine.MessageRef{ID: "m3", Sender: "Ann", Text: "clanker?"}, NewestAt: at}
	if err := s.Engine().SaveConversation(rec); err != nil {
		t.Fatal(err)
	}
	s.Close()
	got, ok, err := openAt(t, dir).Engine().LoadConversation("c1")
	if err != nil || !ok || got.Decided != rec.Decided || got.Announced != rec.Announced || !got.NewestAt.Equal(at) {
		t.Errorf("after reopen = %+v (%v, %v); want decided %+v, announced %s, newest %v", got, ok, err, rec.Decided, rec.Announced, at)
	}
}

// Message ids are remembered per conversation across a reopen, keep the conversation they
// were first seen in, skip pending (tmp_) ids, stay bounded, and go with a purge or with a
// conversation housekeeping forgets.
func TestSeenMessageIdsAreRememberedBoundedAndPurged(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, dir)
	es := s.Engine()
	for _, c := range []engine.ConversationID{"a", "b"} {
		if err := es.SaveConversation(engine.Conversation{ID: c, LastSeen: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := es.RecordMessages("a", []string{"m1", "m2", "tmp_5"}); err != nil {
		t.Fatal(err)
	}
	if err := es.RecordMessages("b", []string{"m2", "m3"}); err != nil { // m2 again: stays a's
		t.Fatal(err)
	}
	s.Close()
	s = openAt(t, dir)
	es = s.Engine()
	got, err := es.MessageOwners([]string{"m1", "m2", "m3", "tmp_5", "never"})
	want := map[string]engine.ConversationID{"m1": "a", "m2": "a", "m3": "b"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("owners = %v (%v), want %v", got, err, want)
	}

	// Bounded: a conversation keeps only the newest maxSeenPerConversation ids.
	many := make([]string, maxSeenPerConversation+50)
	for i := range many {
		many[i] = fmt.Sprintf("x%05d", i)
	}
	if err := es.RecordMessages("b", many); err != nil {
		t.Fatal(err)
	}
	var n int
	s.db.QueryRow(`SELECT count(*) FROM seen_messages WHERE conversation_id = 'b'`).Scan(&n)
	if n != maxSeenPerConversation {
		t.Errorf("conversation b keeps %d ids, want %d", n, maxSeenPerConversation)
	}
	if got, _ := es.MessageOwners([]string{many[len(many)-1], "m3"}); got[many[len(many)-1]] != "b" || got["m3"] != "" {
		t.Errorf("after the bound: owners %v; want the newest kept and the oldest (m3) gone", got)
	}

	// A purge forgets what was seen in the conversation; housekeeping forgets with the row.
	if err := s.PurgeConversation(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	if got, _ := es.MessageOwners([]string{"m1"}); len(got) != 0 {
		t.Errorf("after purging a: owners %v, want none", got)
	}
	if _, err := es.ForgetUnseen(t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	s.db.QueryRow(`SELECT count(*) FROM seen_messages`).Scan(&n)
	if n != 0 {
		t.Errorf("%d ids left after housekeeping forgot both conversations, want 0", n)
	}
}

// A view that mixed two conversations, taken as one, left one conversation's message ids and
// pointers under another. RepairHistory gives each id back to the conversation it was seen in
// first and clears the pointers that name another conversation's message; run again, it
// changes nothing.
func TestRepairHistoryRemovesAnotherConversationsMessages(t *testing.T) {
	s, _ := openTest(t)
	es := s.Engine()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(es.SaveConversation(engine.Conversation{ID: "jane", LastProcessed: engine.MessageRef{ID: "j2", Sender: "Jane", Text: "q"}}))
	must(es.RecordMessages("jane", []string{"j1", "j2"}))
	// Mom's record as an earlier version wrote it, with Jane's rows from a lingering pane.
	must(es.SaveConversation(engine.Conversation{ID: "mom",
		LastProcessed: engine.MessageRef{ID: "j2", Sender: "Jane", Text: "q"},
		Decided:       engine.MessageRef{ID: "j1", Sender: "Jane", Text: "hey"}}))
	if _, err := s.db.Exec(`INSERT INTO seen_messages (conversation_id, message_id, seq) VALUES ('mom', 'j1', 9e15), ('mom', 'j2', 9e15), ('mom', 'm1', 9e15)`); err != nil {
		t.Fatal(err)
	}
	r, err := s.RepairHistory(ctx)
	if err != nil || r.ForeignIDs != 2 || r.Pointers != 1 {
		t.Fatalf("repair = %+v (%v), want 2 ids removed and 1 conversation's pointers cleared", r, err)
	}
	owners, _ := es.MessageOwners([]string{"j1", "j2", "m1"})
	if owners["j1"] != "jane" || owners["j2"] != "jane" || owners["m1"] != "mom" {
		t.Errorf("owners after repair = %v", owners)
	}
	var n int
	s.db.QueryRow(`SELECT count(*) FROM seen_messages WHERE conversation_id = 'mom'`).Scan(&n)
	if n != 1 {
		t.Errorf("mom keeps %d ids, want only its own", n)
	}
	mom, _, _ := es.LoadConversation("mom")
	if !mom.LastProcessed.IsZero() || !mom.Decided.IsZero() {
		t.Errorf("mom's pointers after repair = %+v / %+v, want both cleared", mom.LastProcessed, mom.Decided)
	}
	jane, _, _ := es.LoadConversation("jane")
	if jane.LastProcessed.ID != "j2" {
		t.Errorf("jane's own pointer was touched: %+v", jane.LastProcessed)
	}
	if r, err := s.RepairHistory(ctx); err != nil || r != (HistoryRepair{}) {
		t.Errorf("second repair = %+v (%v), want nothing to do", r, err)
	}
}
