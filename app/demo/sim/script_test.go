package sim

import (
	"regexp"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// scriptServer builds a simulator without listeners, so it can run inside a synctest
// bubble whose fake clock drives the script's timers.
func scriptServer(t *testing.T, o Options) *Server {
	t.Helper()
	o.Logger = quiet()
	s, err := newServer(o)
	if err != nil {
		t.Fatalf("newServer: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// addressesClanker is how a friend speaks to Clanker in the script: by name, first.
var addressesClanker = regexp.MustCompile(`^Clanker, `)

func TestDemoScriptFillsTheFirstMinuteOfTheGroupWithAMentionChatAndAPhoto(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := scriptServer(t, Options{Seed: 1, Script: DemoScript()})
		group := s.ScriptGroup()
		if group == "" {
			t.Fatal("expected the script to create its group at the start")
		}
		before := map[string]int{}
		for _, c := range s.Conversations() {
			ms, _ := s.Messages(c.ID)
			before[c.ID] = len(ms)
		}
		var names []string
		for _, c := range s.Conversations() {
			names = append(names, c.Name)
		}
		if !slices.Contains(names, DemoGroup) {
			t.Fatalf("expected the sidebar to hold %q, got %q", DemoGroup, names)
		}
		history := before[group]

		time.Sleep(time.Minute)
		synctest.Wait()

		ms, err := s.Messages(group)
		if err != nil {
			t.Fatal(err)
		}
		live := ms[history:]
		var mentions, chats, photos []Message
		for _, m := range live {
			switch {
			case m.Outgoing:
				t.Errorf("expected only friends to write, got an outgoing row %+v", m)
			case m.Image != "":
				photos = append(photos, m)
			case addressesClanker.MatchString(m.Text):
				mentions = append(mentions, m)
			default:
				chats = append(chats, m)
			}
		}
		if len(mentions) == 0 || len(chats) == 0 || len(photos) == 0 {
			t.Fatalf("expected a mention, a chat and a photo in the first minute; got mentions %d, chats %d, photos %d: %+v",
				len(mentions), len(chats), len(photos), live)
		}
		// Someone else chats: not only the friend who addressed Clanker.
		if !slices.ContainsFunc(chats, func(m Message) bool { return m.From != mentions[0].From }) {
			t.Errorf("expected someone other than %s to chat, got %+v", mentions[0].From, chats)
		}
		if photos[0].Image != MediaPhoto {
			t.Errorf("expected the generated photo, got %q", photos[0].Image)
		}
		// Nothing else changed: the script writes only in its group.
		for _, c := range s.Conversations() {
			if c.ID == group {
				continue
			}
			ms, _ := s.Messages(c.ID)
			if len(ms) != before[c.ID] {
				t.Errorf("expected %q to be left alone by the script, it went from %d to %d rows", c.Name, before[c.ID], len(ms))
			}
		}
		// The order is the script's: the same run gives the same rows.
		again := scriptServer(t, Options{Seed: 1, Script: DemoScript()})
		time.Sleep(time.Minute)
		synctest.Wait()
		ms2, _ := again.Messages(again.ScriptGroup())
		if len(ms2) != len(ms) {
			t.Fatalf("expected a second run to say as much, got %d then %d rows", len(ms), len(ms2))
		}
		for i := range ms {
			if ms[i].ID != ms2[i].ID || ms[i].Text != ms2[i].Text || ms[i].From != ms2[i].From {
				t.Errorf("row %d differs between runs: %+v vs %+v", i, ms[i], ms2[i])
			}
		}
	})
}

func TestDemoScriptReactsOnceWhenClankerIsSwitchedOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := scriptServer(t, Options{Seed: 1, Script: DemoScript()})
		group := s.ScriptGroup()
		// Past the timed lines, so whatever comes next is the reaction.
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		quiet, _ := s.Messages(group)

		s.ClankerMode("not-the-group", "available")
		s.ClankerMode(group, "deactivated")
		time.Sleep(time.Minute)
		synctest.Wait()
		if ms, _ := s.Messages(group); len(ms) != len(quiet) {
			t.Fatalf("expected nothing for another conversation or Deactivated; got %d new rows", len(ms)-len(quiet))
		}

		s.ClankerMode(group, "available")
		time.Sleep(10 * time.Second)
		synctest.Wait()
		ms, _ := s.Messages(group)
		if len(ms) <= len(quiet) || !addressesClanker.MatchString(ms[len(quiet)].Text) {
			t.Fatalf("expected a friend to address Clanker within 10 s of the switch, got %+v", ms[len(quiet):])
		}

		time.Sleep(time.Minute)
		synctest.Wait()
		afterAvailable, _ := s.Messages(group)
		s.ClankerMode(group, "available") // again: the friends already reacted
		time.Sleep(time.Minute)
		synctest.Wait()
		if ms, _ := s.Messages(group); len(ms) != len(afterAvailable) {
			t.Errorf("expected one reaction per mode, got %d more rows", len(ms)-len(afterAvailable))
		}
		s.ClankerMode(group, "active")
		time.Sleep(time.Minute)
		synctest.Wait()
		if ms, _ := s.Messages(group); len(ms) == len(afterAvailable) {
			t.Errorf("expected friends to chat once Clanker is Active")
		}
	})
}

func TestSimulatorWithoutAScriptNeverChangesByItself(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := scriptServer(t, Options{Seed: 1})
		if s.ScriptGroup() != "" {
			t.Fatal("expected no script group without Options.Script")
		}
		before := s.Conversations()
		s.ClankerMode(before[0].ID, "available")
		time.Sleep(time.Hour)
		synctest.Wait()
		after := s.Conversations()
		if !slices.EqualFunc(before, after, func(a, b Conversation) bool {
			return a.ID == b.ID && a.Snippet == b.Snippet && a.Time == b.Time
		}) {
			t.Errorf("expected the default simulator to stay as it was, got %+v then %+v", before, after)
		}
		for _, c := range after {
			if c.Name == DemoGroup {
				t.Errorf("expected no %q without a script", DemoGroup)
			}
		}
	})
}
