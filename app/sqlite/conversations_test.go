package sqlite

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

func TestUnknownConversationIsDeactivatedAndNotStored(t *testing.T) {
	s, _ := openTest(t)
	c, stored, err := s.Conversation(context.Background(), "never-seen")
	if err != nil || c.Mode != engine.ModeDeactivated || stored || c.ID != "never-seen" || c.Memory.Profiles == nil {
		t.Errorf("unknown conversation = %+v (%v); want deactivated, not stored, empty profiles", c, err)
	}
}

func TestConversationFieldsRoundTripAndAreWrittenIndependently(t *testing.T) {
	s, clk := openTest(t)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.SetMode(ctx, "c1", engine.ModeAvailable))
	must(s.SaveMemory(ctx, "c1", engine.Memory{Summary: "sum", Customization: "pirate", Profiles: map[string]string{"Ann": "likes tea"}}))
	must(s.SetLastMessage(ctx, "c1", engine.MessageRef{ID: "m9", Sender: "Ann", Text: "hi clanker"}))
	lastCheck, lastMessage := t0.Add(-time.Hour), t0.Add(-3*time.Hour)
	must(s.SetNewsTimes(ctx, "c1", lastMessage, lastCheck))
	clk.t = t0.Add(time.Minute)
	must(s.SetModelOverride(ctx, "c1", "gpt-5-mini"))

	c, stored, err := s.Conversation(ctx, "c1")
	if err != nil || !stored {
		t.Fatal(stored, err)
	}
	want := engine.Conversation{
		ID: "c1", Mode: engine.ModeAvailable,
		Memory:        engine.Memory{Summary: "sum", Customization: "pirate", Profiles: map[string]string{"Ann": "likes tea"}},
		LastProcessed: engine.MessageRef{ID: "m9", Sender: "Ann", Text: "hi clanker"},
		ModelOverride: "gpt-5-mini",
		// A mode stored outside the engine was never announced: the notice is still owed.
		Announced: engine.ModeDeactivated,
	}
	if !c.LastNewsCheck.Equal(lastCheck) || !c.LastMessageAt.Equal(lastMessage) {
		t.Errorf("news times = %v, %v; want %v, %v", c.LastMessageAt, c.LastNewsCheck, lastMessage, lastCheck)
	}
	if !c.LastSeen.Equal(t0) {
		t.Errorf("last seen = %v, want %v (model override is a setting, not a sighting)", c.LastSeen, t0)
	}
	c.LastMessageAt, c.LastNewsCheck, c.LastSeen = time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("conversation = %+v\nwant %+v", c, want)
	}
}

func TestInvalidConversationInputGetsAClearError(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	cases := map[string]error{
		"bad mode":       s.SetMode(ctx, "c", engine.Mode("uninitialized")),
		"empty id":       s.SetMode(ctx, "", engine.ModeActive),
		"huge id":        s.SetMode(ctx, strings.Repeat("i", MaxIDLength+1), engine.ModeActive),
		"huge summary":   s.SaveMemory(ctx, "c", engine.Memory{Summary: strings.Repeat("s", MaxTextBytes+1)}),
		"huge profiles":  s.SaveMemory(ctx, "c", engine.Memory{Profiles: map[string]string{"a": strings.Repeat("p", MaxTextBytes)}}),
		"huge last text": s.SetLastMessage(ctx, "c", engine.MessageRef{Text: strings.Repeat("t", MaxTextBytes+1)}),
	}
	for name, err := range cases {
		if err == nil {
			t.Errorf("%s: accepted, want an error", name)
		}
	}
	if c, stored, _ := s.Conversation(ctx, "c"); stored {
		t.Errorf("refused writes created conversation c: %+v", c)
	}
}

func TestUnknownStoredModeReadsAsDeactivated(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	if err := s.SetMode(ctx, "c", engine.ModeActive); err != nil {
		t.Fatal(err)
	}
	s.db.Exec(`UPDATE conversations SET mode = 'hyperactive' WHERE id = 'c'`)
	if c, _, err := s.Conversation(ctx, "c"); err != nil || c.Mode != engine.ModeDeactivated {
		t.Errorf("unknown stored mode read as %q (%v), want deactivated", c.Mode, err)
	}
}

func seed(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	for id, mode := range map[string]engine.Mode{"cur": engine.ModeActive, "other": engine.ModeAvailable, "quiet": engine.ModeDeactivated} {
		if err := s.SetMode(ctx, id, mode); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveMemory(ctx, id, engine.Memory{Summary: "summary of " + id, Customization: "style", Profiles: map[string]string{"Bo": "x"}}); err != nil {
			t.Fatal(err)
		}
		if err := s.SetLastMessage(ctx, id, engine.MessageRef{ID: "m1", Sender: "Bo", Text: "yo"}); err != nil {
			t.Fatal(err)
		}
		if err := s.PutImage(ctx, CachedImage{ConversationID: id, Source: "blob:https://messages.google.com/1", MIME: "image/jpeg", Width: 448, Height: 448, Data: []byte{1, 2, 3}}); err != nil {
			t.Fatal(err)
		}
		if err := s.RecordUsage(ctx, engine.Usage{Conversation: engine.ConversationID(id), Model: "m", Tokens: engine.Tokens{Prompt: 100, Completion: 10}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetModelOverride(ctx, "cur", "special"); err != nil {
		t.Fatal(err)
	}
}

func TestPurgeConversationForgetsMemoryButKeepsModeAndOverride(t *testing.T) {
	s, _ := openTest(t)
	seed(t, s)
	ctx := context.Background()
	if err := s.PurgeConversation(ctx, "cur"); err != nil {
		t.Fatal(err)
	}
	c, _, _ := s.Conversation(ctx, "cur")
	if c.Mode != engine.ModeActive || c.ModelOverride != "special" {
		t.Errorf("purge changed mode/override: %q %q", c.Mode, c.ModelOverride)
	}
	if c.Memory.Summary != "" || c.Memory.Customization != "" || len(c.Memory.Profiles) != 0 || c.LastProcessed != (engine.MessageRef{}) {
		t.Errorf("purge left memory behind: %+v", c)
	}
	if _, ok, _ := s.Image(ctx, "cur", "blob:https://messages.google.com/1"); ok {
		t.Errorf("purge left the cached image")
	}
	if o, _, _ := s.Conversation(ctx, "other"); o.Memory.Summary != "summary of other" || o.Mode != engine.ModeAvailable {
		t.Errorf("purging cur touched other: %+v", o)
	}
	if _, ok, _ := s.Image(ctx, "other", "blob:https://messages.google.com/1"); !ok {
		t.Errorf("purging cur removed other's image")
	}
}

func TestPurgeAllForgetsMemoryKeepsModesSettingsKeyAndUsage(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	st := engine.DefaultSettings()
	st.Model = "keep-me"
	if _, err := s.SaveSettings(ctx, st); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetAPIKey(ctx, testKey); err != nil {
		t.Fatal(err)
	}
	seed(t, s)
	n, err := s.PurgeAll(ctx)
	if err != nil || n != 3 {
		t.Fatalf("PurgeAll = %d, %v; want the 3 stored conversations purged", n, err)
	}
	if got, _ := s.Settings(ctx); got.Model != "keep-me" {
		t.Errorf("purge all lost settings: model %q", got.Model)
	}
	if k, _, _ := s.APIKey(ctx); k != testKey {
		t.Errorf("purge all lost the API key")
	}
	c, _, _ := s.Conversation(ctx, "cur")
	if c.Mode != engine.ModeActive || c.ModelOverride != "special" || c.Memory.Summary != "" || len(c.Memory.Profiles) != 0 || !c.LastProcessed.IsZero() {
		t.Errorf("cur after purge all = %+v; want its mode and override only", c)
	}
	// Another conversation keeps its mode too: the purge never switches Clanker off.
	if o, _, _ := s.Conversation(ctx, "other"); o.Mode != engine.ModeAvailable || o.Memory.Summary != "" {
		t.Errorf("other after purge all = %+v; want its mode kept and its memory gone", o)
	}
	var images int
	s.db.QueryRow(`SELECT count(*) FROM image_cache`).Scan(&images)
	if images != 0 {
		t.Errorf("%d cached images survived purge all", images)
	}
	totals, _ := s.UsageByConversation(ctx, t0.Add(-time.Hour), t0.Add(time.Hour))
	if len(totals) != 3 {
		t.Errorf("usage must survive purge all (it feeds the budget); got %+v", totals)
	}
}

func TestDeactivateAllReachesEveryStoredConversationAndKeepsMemory(t *testing.T) {
	s, _ := openTest(t)
	seed(t, s)
	ctx := context.Background()
	n, err := s.DeactivateAll(ctx)
	if err != nil || n != 2 {
		t.Errorf("DeactivateAll changed %d (%v), want 2 (cur and other)", n, err)
	}
	cs, _ := s.Conversations(ctx)
	for _, c := range cs {
		if c.Mode != engine.ModeDeactivated || c.Memory.Summary == "" {
			t.Errorf("after deactivate all %s = mode %q summary %q; want deactivated with summary kept", c.ID, c.Mode, c.Memory.Summary)
		}
	}
}

func TestForgetUnseenSinceDropsOldConversationsAndTheirImages(t *testing.T) {
	s, clk := openTest(t)
	ctx := context.Background()
	clk.t = t0.Add(-40 * 24 * time.Hour)
	for _, id := range []string{"old", "old-but-current"} {
		if err := s.SetMode(ctx, id, engine.ModeActive); err != nil {
			t.Fatal(err)
		}
	}
	s.PutImage(ctx, CachedImage{ConversationID: "old", Source: "blob:a", MIME: "image/jpeg", Width: 1, Height: 1, Data: []byte{1}})
	clk.t = t0.Add(-10 * 24 * time.Hour)
	s.SetMode(ctx, "recent", engine.ModeActive)
	clk.t = t0.Add(-35 * 24 * time.Hour)
	s.Touch(ctx, "touched") // created 35 days ago, then seen again below
	clk.t = t0
	s.Touch(ctx, "touched")

	n, err := s.ForgetUnseenSince(ctx, t0.Add(-30*24*time.Hour), "old-but-current")
	if err != nil || n != 1 {
		t.Fatalf("forgot %d (%v), want 1", n, err)
	}
	for id, want := range map[string]bool{"old": false, "old-but-current": true, "recent": true, "touched": true} {
		if _, stored, _ := s.Conversation(ctx, id); stored != want {
			t.Errorf("%s stored = %v, want %v", id, stored, want)
		}
	}
	var images int
	s.db.QueryRow(`SELECT count(*) FROM image_cache WHERE conversation_id = 'old'`).Scan(&images)
	if images != 0 {
		t.Errorf("forgotten conversation's image was kept (foreign key cascade off?)")
	}
}

func TestImageCacheReplacesBySourceAndKeepsTheNewestFew(t *testing.T) {
	s, clk := openTest(t)
	ctx := context.Background()
	if err := s.SetMode(ctx, "c", engine.ModeActive); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < MaxImagesPerConversation+2; i++ {
		clk.t = t0.Add(time.Duration(i) * time.Second)
		img := CachedImage{ConversationID: "c", Source: "blob:" + string(rune('a'+i)), MIME: "image/jpeg", Width: 896, Height: 448, Data: []byte{byte(i)}}
		if err := s.PutImage(ctx, img); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, _ := s.Image(ctx, "c", "blob:a"); ok {
		t.Errorf("oldest image kept beyond the limit")
	}
	got, ok, err := s.Image(ctx, "c", "blob:f")
	if err != nil || !ok || !bytes.Equal(got.Data, []byte{5}) || got.Width != 896 || got.MIME != "image/jpeg" {
		t.Errorf("newest image = %+v ok=%v err=%v", got, ok, err)
	}
	s.PutImage(ctx, CachedImage{ConversationID: "c", Source: "blob:f", MIME: "image/png", Width: 1, Height: 1, Data: []byte{9, 9}})
	if got, _, _ := s.Image(ctx, "c", "blob:f"); !bytes.Equal(got.Data, []byte{9, 9}) || got.MIME != "image/png" {
		t.Errorf("same source did not replace: %+v", got)
	}
	if c, _, _ := s.Conversation(ctx, "c"); c.Mode != engine.ModeActive {
		t.Errorf("caching an image changed the mode to %q", c.Mode)
	}
	for name, img := range map[string]CachedImage{
		"no data":  {ConversationID: "c", Source: "s", MIME: "image/jpeg", Width: 1, Height: 1},
		"not mime": {ConversationID: "c", Source: "s", MIME: "text/html", Width: 1, Height: 1, Data: []byte{1}},
		"no size":  {ConversationID: "c", Source: "s", MIME: "image/jpeg", Data: []byte{1}},
		"no conv":  {Source: "s", MIME: "image/jpeg", Width: 1, Height: 1, Data: []byte{1}},
	} {
		if err := s.PutImage(ctx, img); err == nil {
			t.Errorf("%s: bad image accepted", name)
		}
	}
}
