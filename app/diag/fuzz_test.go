package diag

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzViewsNeverContainTheSecret seeds a key-shaped secret, wrapped in arbitrary text, into every
// string of a snapshot (names, ids, message text, summaries, profile names and notes, map keys
// and values, notes, image sources) and checks that neither the sanitised nor the unsanitised
// view contains it anywhere. The secret is restricted to the characters API keys use and at least
// 16 of them, and deliberately has no provider prefix, so the explicit secret list is what is
// tested, not the key-shape pattern.
func FuzzViewsNeverContainTheSecret(f *testing.F) {
	f.Add("Zq8vN3xLr7Tw2Kp9Hd4M", "Ann said ", " out loud", "Ann")
	f.Add("abcdefghijklmnopqrst", "", "", "")
	f.Add("0123456789012345678", "call ", " now", "+1 555 0100")
	f.Add("AnnAnnAnnAnnAnnAnn1", "Ann", "Ann", "Ann")
	f.Add("https___example_com_x", "https://", "/v1", "Bob")
	f.Add("aaaaaaaaaaaaaaaaaaaaaaaa", "aaaa", "aaaa", "aa")
	f.Fuzz(func(t *testing.T, rawSecret, before, after, name string) {
		secret := keyChars(rawSecret)
		if len(secret) < 16 {
			return
		}
		wrap := before + secret + after
		msg := MessageReport{ID: wrap, Sender: name + secret, Text: wrap, Type: wrap, ImageSrc: "blob:https://x/" + secret}
		s := Report{
			GeneratedAt: time.Unix(0, 0).UTC(), AppVersion: wrap, UserName: name + secret,
			Settings: map[string]string{"apiKey": secret, wrap: wrap}, Fields: map[string]string{secret: wrap},
			Notes: []string{wrap, "Authorization: Bearer " + secret},
			Conversations: []ConversationReport{{
				ID: secret, Mode: wrap, ModelOverride: wrap, Summary: wrap, Customization: wrap,
				Profiles: map[string]string{name: wrap, secret: name}, Participants: []string{name, wrap},
				LastMessage: &msg, Messages: []MessageReport{msg, {ID: "m2", Sender: name, Text: wrap}},
				Fields: map[string]string{"pending": wrap},
			}},
		}
		for view, snap := range map[string]Report{"sanitised": Sanitize(s, secret), "unsanitised": Unsanitized(s, secret)} {
			b, err := JSON(snap)
			if err != nil {
				t.Fatalf("%s view does not encode: %v", view, err)
			}
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatalf("%s view is not valid JSON: %v", view, err)
			}
			if where := findString(v, secret, "$"); where != "" {
				t.Fatalf("%s view contains the secret %q at %s", view, secret, where)
			}
		}
	})
}

// keyChars keeps the characters API keys are made of.
func keyChars(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// findString returns the path of the first string (value or key) in v that contains needle.
func findString(v any, needle, path string) string {
	switch x := v.(type) {
	case string:
		if strings.Contains(x, needle) {
			return path
		}
	case []any:
		for i, e := range x {
			if p := findString(e, needle, path+"["+strconv.Itoa(i)+"]"); p != "" {
				return p
			}
		}
	case map[string]any:
		for k, e := range x {
			if strings.Contains(k, needle) {
				return path + " key " + k
			}
			if p := findString(e, needle, path+"."+k); p != "" {
				return p
			}
		}
	}
	return ""
}
