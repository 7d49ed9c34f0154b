package diag

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

const apiKey = "xai-9f8e7d6c5b4a3210FEDCBAzyxw"

var when = time.Date(2026, 3, 15, 9, 30, 0, 0, time.UTC)

// richFixture has every kind of identifying detail the sanitiser must remove,
// in the places a real snapshot carries them.
func richFixture() Report {
	return Report{
		GeneratedAt: when,
		AppVersion:  "0.1.0",
		UserName:    "Margaret Okonkwo",
		Settings: map[string]string{
			"endpoint": "https://api.x.ai/v1",
			"model":    "grok-4",
			"apiKey":   "xai-…zyxw",
			"userName": "Margaret Okonkwo",
		},
		Notes: []string{
			"request to https://api.x.ai/v1/chat/completions failed with Authorization: Bearer " + apiKey,
			"warning: key " + apiKey + " rejected",
			"Zoë Ångström texted from +1 (415) 555-0142 at 2026-03-15",
		},
		Fields: map[string]string{"lastError": "401 from https://api.x.ai/v1/responses?trace=abc"},
		Conversations: []ConversationReport{{
			ID:            "8237462873646",
			Name:          "Trailblazers Uphill",
			Mode:          "active",
			ModelOverride: "grok-4-fast",
			Summary: "The Trailblazers Uphill group: Margaret and Zoë planned a hike; Dmitri O'Neill (dmitri.oneill@example.com) will drive. " +
				"Zoë's new number is 415.555.0199, Margaret's is (415) 555-0142. Photos at www.trailpics.org/album/77 " +
				"and https://photos.example.net/u/zoe?id=1. Call 1-800-555-0123 or +44 20 7946 0958 or 5550147.",
			Customization: "Talk like a pirate, and call Dmitri 'Captain Dmitri'",
			Profiles: map[string]string{
				"Zoë Ångström":     "hikes; sister of Margaret; lives near https://maps.app.goo.gl/xyz",
				"Dmitri O'Neill":   "drives a van, phone 415-555-0177",
				"Margaret Okonkwo": "the user",
			},
			Participants: []string{"Margaret Okonkwo", "Zoë Ångström", "Dmitri O'Neill", "22395", "(415) 555-0188"},
			LastMessage:  &MessageReport{ID: "tmp_123456", Sender: "Zoë Ångström", Text: "clanker, is it going to rain?"},
			Messages: []MessageReport{
				{ID: "m1", Sender: "Zoë Ångström", Text: "hi Margaret! call me at 415 555 0199", Type: "text", Time: when},
				{ID: "m2", Sender: "You", Text: "sure zoë, see https://weather.example.com/sf", Type: "text", Time: when},
				{ID: "m3", Sender: "Dmitri O'Neill", Type: "image", ImageSrc: "blob:https://messages.google.com/0f3c2a1e-77aa-4b1c-9d2e-1234567890ab", Time: when},
				{ID: "m4", Sender: "You", Text: "[clanker] Nice van, Dmitri!", IsClanker: true, Type: "text", Time: when},
				{ID: "m5", Sender: "22395", Text: "Your code is 848213", Type: "text", Time: when},
				{ID: "m6", Sender: "(415) 555-0188", Text: "who is this?", Type: "text+image", ImageSrc: "blob:https://messages.google.com/aaaa-bbbb", Time: when},
			},
			Fields: map[string]string{"pendingResponse": "true", "requestedImage": "blob:https://messages.google.com/0f3c2a1e-77aa-4b1c-9d2e-1234567890ab"},
		}},
	}
}

func sanitizedJSON(t *testing.T) (Report, string) {
	t.Helper()
	s := Sanitize(richFixture(), apiKey)
	b, err := JSON(s)
	if err != nil {
		t.Fatal(err)
	}
	return s, string(b)
}

func TestSanitizedExportContainsNoNamesNumbersURLsOrKey(t *testing.T) {
	_, out := sanitizedJSON(t)
	lower := strings.ToLower(out)
	forbidden := []string{
		// names and name parts, in any case
		"margaret", "okonkwo", "zoë", "zoe", "ångström", "dmitri", "o'neill", "neill",
		// the conversation's name, as a field and in the summary
		"trailblazers", "uphill",
		// numbers, in every format used in the fixture
		"555", "0142", "0199", "0177", "0188", "0123", "7946", "0958", "5550147", "22395", "848213", "415",
		// URLs, hosts, paths, e-mail
		"x.ai", "api.", "/v1", "chat/completions", "trace=", "example", "trailpics", "album", "goo.gl",
		"messages.google.com", "0f3c2a1e", "aaaa-bbbb", "weather", "photos.", "@example",
		// the key, whole or in part
		"9f8e7d6c5b4a3210", "fedcbazyxw",
		// IDs
		"8237462873646", "123456",
	}
	for _, f := range forbidden {
		if strings.Contains(lower, strings.ToLower(f)) {
			i := strings.Index(lower, strings.ToLower(f))
			t.Errorf("sanitised export still contains %q: ...%s...", f, out[max(0, i-40):min(len(out), i+40)])
		}
	}
}

func TestSanitizedExportKeepsStructureAndStableLabels(t *testing.T) {
	s, out := sanitizedJSON(t)
	c := s.Conversations[0]
	if s.UserName != "User001" || c.Participants[0] != "User001" || c.Profiles["User001"] != "the user" {
		t.Errorf("user name should be User001 everywhere: user %q participants %v profiles %v", s.UserName, c.Participants, c.Profiles)
	}
	zoe := c.Participants[1]
	if zoe != "User002" || c.Messages[0].Sender != zoe || c.LastMessage.Sender != zoe {
		t.Errorf("Zoë should be User002 in participants, senders and last message: %v / %q / %q", c.Participants, c.Messages[0].Sender, c.LastMessage.Sender)
	}
	if c.Messages[1].Sender != "You" {
		t.Errorf("You should stay You, got %q", c.Messages[1].Sender)
	}
	if c.Participants[3] != "(001) XXX-XXXX" || c.Messages[4].Sender != "(001) XXX-XXXX" {
		t.Errorf("short code sender should be (001) XXX-XXXX, got %v / %q", c.Participants, c.Messages[4].Sender)
	}
	// (415) 555-0142 appears in a note, the summary: one label for one number.
	phone := regexp.MustCompile(`\(\d{3}\) XXX-XXXX`)
	noteLabel := phone.FindString(s.Notes[2]) // +1 (415) 555-0142 in the note
	if noteLabel == "" || !strings.Contains(c.Summary, "User001's is "+noteLabel) {
		t.Errorf("the same number in a note (%q) and the summary should get one label: %q", noteLabel, c.Summary)
	}
	if n := len(uniq(phone.FindAllString(out, -1))); n != 8 {
		t.Errorf("expected 8 distinct phone labels (one per distinct number), got %d: %v", n, uniq(phone.FindAllString(out, -1)))
	}
	if c.Messages[2].ImageSrc != c.Fields["requestedImage"] || c.Messages[2].ImageSrc == c.Messages[5].ImageSrc {
		t.Errorf("blob labels should be stable per blob and distinct between blobs: %q %q %q",
			c.Messages[2].ImageSrc, c.Fields["requestedImage"], c.Messages[5].ImageSrc)
	}
	if c.Mode != "active" || c.ModelOverride != "grok-4-fast" || len(c.Messages) != 6 || !c.Messages[0].Time.Equal(when) || c.Messages[3].Type != "text" {
		t.Errorf("mode, override, counts, types and times must be kept: %+v", c)
	}
	if got := c.Messages[3].Text; got != "[clanker] [message text redacted, 27 characters]" {
		t.Errorf("own message text = %q; want the prefix and the length only", got)
	}
	if c.LastMessage.ID != "tmp_id-002" || c.ID != "id-001" {
		t.Errorf("ids: conversation %q, last message %q; want id-001 and tmp_id-002", c.ID, c.LastMessage.ID)
	}
	if !strings.Contains(s.Notes[0], "https://redacted") || !strings.Contains(s.Notes[0], redactedSecret) {
		t.Errorf("note should keep the scheme and mark the secret: %q", s.Notes[0])
	}
	if !strings.Contains(c.Summary, "https://redacted. Call") {
		t.Errorf("a URL at the end of a sentence should keep the full stop: %q", c.Summary)
	}
	if !strings.Contains(c.Customization, "Talk like a pirate") || !strings.Contains(c.Customization, "Captain User003") {
		t.Errorf("customization should keep its wording with names replaced: %q", c.Customization)
	}
}

func uniq(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func TestUnsanitizedViewKeepsContentButNeverTheKey(t *testing.T) {
	s := Unsanitized(richFixture(), apiKey)
	b, _ := json.Marshal(s)
	out := string(b)
	if strings.Contains(out, apiKey) || strings.Contains(out, "9f8e7d6c5b4a3210") {
		t.Errorf("unsanitised view contains the API key: %s", out)
	}
	if !strings.Contains(out, "Margaret Okonkwo") || !strings.Contains(out, "415.555.0199") || !strings.Contains(out, "https://api.x.ai/v1") {
		t.Errorf("unsanitised view should keep names, numbers and URLs")
	}
	if s.Settings["apiKey"] != "xai-…zyxw" {
		t.Errorf("the masked key is safe and should be kept, got %q", s.Settings["apiKey"])
	}
}

func TestKeyShapedStringsAreRemovedEvenWhenNotPassedAsSecrets(t *testing.T) {
	snap := Report{Notes: []string{"header Authorization: Bearer abcdefgh12345678", "key sk-proj-AAAAbbbbCCCCdddd1234"}}
	for name, s := range map[string]Report{"sanitised": Sanitize(snap), "unsanitised": Unsanitized(snap)} {
		b, _ := json.Marshal(s)
		if strings.Contains(string(b), "abcdefgh12345678") || strings.Contains(string(b), "AAAAbbbbCCCCdddd1234") {
			t.Errorf("%s view leaked a key-shaped string: %s", name, b)
		}
	}
}

func TestSanitizingDoesNotModifyTheInput(t *testing.T) {
	in := richFixture()
	Sanitize(in, apiKey)
	Unsanitized(in, apiKey)
	if in.UserName != "Margaret Okonkwo" || in.Conversations[0].Profiles["Dmitri O'Neill"] == "" || in.Conversations[0].Messages[0].Text != "hi Margaret! call me at 415 555 0199" {
		t.Errorf("input snapshot was modified")
	}
}

func TestPhoneNumbersInEveryFormatGetOneLabelPerNumber(t *testing.T) {
	r := NewRedactor(nil)
	same := []string{"(555) 123-4567", "555-123-4567", "555.123.4567", "5551234567", "+1 555 123 4567", "+1-555-123-4567", "1 (555) 123-4567"}
	var first string
	for _, p := range same {
		got := r.Text("call " + p + " now")
		if !strings.HasPrefix(got, "call (") || !strings.HasSuffix(got, " now") || strings.Contains(got, "4567") {
			t.Errorf("Text(%q) = %q", p, got)
			continue
		}
		if first == "" {
			first = got
		} else if got != first {
			t.Errorf("%q labelled %q, but the same number was %q before", p, got, first)
		}
	}
	two := r.Text("555-123-4567 555-987-6543")
	if strings.Contains(two, "6543") || !strings.Contains(two, "(002) XXX-XXXX") {
		t.Errorf("two numbers in a row: %q", two)
	}
	if got := r.Text("on 2026-03-15 we met 3 friends"); got != "on 2026-03-15 we met 3 friends" {
		t.Errorf("dates and small numbers should be left alone, got %q", got)
	}
}

func TestNamesAreReplacedAsWholeWordsOnly(t *testing.T) {
	r := NewRedactor([]string{"Ann", "Bob Stone"})
	got := r.Text("Ann's friend Bob (and bob stone, BOB) met Annabel at Stonehenge")
	want := "User001's friend User002 (and User002, User002) met Annabel at Stonehenge"
	if got != want {
		t.Errorf("Text = %q\nwant %q", got, want)
	}
}

func TestValueSanitisesDecodedJSONFixtures(t *testing.T) {
	var fixture any
	raw := `{"conversations":[{"name":"Ann Lee","snippet":"Ann Lee: see https://x.example.com/p","phone":"+1 212 555 0100"}],"Ann Lee":{"blob":"blob:https://messages.google.com/ff-ee"}}`
	if err := json.Unmarshal([]byte(raw), &fixture); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(NewRedactor([]string{"Ann Lee"}).Value(fixture))
	for _, bad := range []string{"Ann", "Lee", "example", "212", "0100", "ff-ee", "google"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("sanitised fixture still contains %q: %s", bad, out)
		}
	}
}
