package llm

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clanker-desktop/clanker/app/engine"
)

// replyCase is one model output from the corpus and what must come of it.
type replyCase struct {
	name    string
	raw     string
	err     error  // expected error (errors.Is), nil for a valid reply
	text    string // expected reply text ("" = silent)
	image   string
	sum     *change[string]
	cust    *change[string]
	prof    *change[map[string]string]
	noteHas string // a substring one of the notes must contain
}

// change is what a case expects of one memory field: Set false means the stored value stays,
// Set with a zero Value means it is cleared.
type change[T any] struct {
	Set   bool
	Value T
}

// changes reads the engine's ContextUpdate back as the three field changes.
func changes(u engine.ContextUpdate) (sum, cust change[string], prof change[map[string]string]) {
	if u.Summary != nil {
		sum = change[string]{Set: true, Value: *u.Summary}
	}
	cust.Set = u.CustomizationSet
	if u.Customization != nil {
		cust.Value = *u.Customization
	}
	prof = change[map[string]string]{Set: u.ProfilesSet, Value: u.Profiles}
	return sum, cust, prof
}

func set[T any](v T) *change[T]    { return &change[T]{Set: true, Value: v} }
func unchanged[T any]() *change[T] { return &change[T]{} }

var long = strings.Repeat("word ", 2000)

var replyCorpus = []replyCase{
	// Valid JSON objects.
	{name: "plain reply object", raw: `{"response": "Sounds good to me!"}`, text: "Sounds good to me!",
		sum: unchanged[string](), cust: unchanged[string](), prof: unchanged[map[string]string]()},
	{name: "reply with summary", raw: `{"response":"Pizza it is.","summary":"Group chose pizza for Friday."}`,
		text: "Pizza it is.", sum: set("Group chose pizza for Friday.")},
	{name: "null response with summary stays silent but updates summary", raw: `{"response": null, "summary": "Bob and Ann plan a hike."}`,
		text: "", sum: set("Bob and Ann plan a hike.")},
	{name: "explicit null response only", raw: `{"response": null}`, text: "", sum: unchanged[string]()},
	{name: "empty summary leaves stored summary", raw: `{"response": "ok", "summary": "   "}`, text: "ok", sum: unchanged[string]()},
	{name: "customization string replaces", raw: `{"response": "Arr!", "customization": "Speak like a pirate."}`,
		text: "Arr!", cust: set("Speak like a pirate.")},
	{name: "customization null clears", raw: `{"response": "Back to normal.", "customization": null}`,
		text: "Back to normal.", cust: set("")},
	{name: "customization empty string clears", raw: `{"response": null, "customization": ""}`, cust: set("")},
	{name: "profiles object of strings replaces", raw: `{"response": "Hi both", "profiles": {"Ann": "likes hiking", "Bob": "vegetarian"}}`,
		text: "Hi both", prof: set(map[string]string{"Ann": "likes hiking", "Bob": "vegetarian"})},
	{name: "profiles empty object clears", raw: `{"response": null, "profiles": {}}`, prof: &change[map[string]string]{Set: true}},
	{name: "profiles null clears", raw: `{"response": null, "profiles": null}`, prof: &change[map[string]string]{Set: true}},
	{name: "request image", raw: `{"requestImage": "blob:https://messages.google.com/abc-123"}`, image: "blob:https://messages.google.com/abc-123"},
	{name: "bare JSON null is silence", raw: `null`, text: ""},
	{name: "bare JSON string is the reply", raw: `"Just a quoted reply"`, text: "Just a quoted reply"},

	// Wrapped JSON.
	{name: "json code fence", raw: "```json\n{\"response\": \"Fenced hello\"}\n```", text: "Fenced hello"},
	{name: "bare code fence", raw: "```\n{\"response\": \"Bare fence\", \"summary\": \"s\"}\n```", text: "Bare fence", sum: set("s")},
	{name: "prose before and after JSON", raw: "Here is my answer:\n{\"response\": \"Inside prose\"}\nHope that helps!", text: "Inside prose"},
	{name: "prose with braces in strings", raw: `Sure. {"response": "use {curly} braces \"quoted\"", "summary": "x}"} done`, text: `use {curly} braces "quoted"`, sum: set("x}")},
	{name: "fence after reasoning", raw: "<think>They asked about dinner. I'll answer.</think>\n```json\n{\"response\": \"Tacos!\"}\n```", text: "Tacos!"},

	// Reasoning.
	{name: "closed think block then plain text", raw: "<think>should I answer? yes</think>Sure, count me in.", text: "Sure, count me in."},
	{name: "thinking tag variant", raw: "<thinking>\nlong\nthoughts\n</thinking>\n{\"response\": \"ok then\"}", text: "ok then"},
	{name: "unclosed think block is not posted", raw: "<think>Let me consider whether to reply... the user said", err: ErrReasoningOnly},
	{name: "reasoning only produces no reply", raw: "<think>nothing to add</think>   ", err: ErrEmptyOutput},
	{name: "orphan closing tag drops preceding reasoning", raw: "I think the user wants a joke.</think>{\"response\": \"Why did the chicken...\"}", text: "Why did the chicken..."},
	{name: "reasoning inside response string is stripped", raw: `{"response": "<think>hmm</think>Fine by me."}`, text: "Fine by me."},

	// Truncated and broken JSON.
	{name: "truncated JSON mid-response is not posted", raw: `{"response": "Sure, I think we should go to the`, err: ErrMalformedJSON},
	{name: "truncated JSON in summary keeps complete response", raw: `{"response": "See you at 6.", "summary": "The group is planning`, text: "See you at 6.", noteHas: "recovered"},
	{name: "truncated fenced JSON", raw: "```json\n{\"response\": \"Hel", err: ErrMalformedJSON},
	{name: "trailing comma JSON", raw: `{"summary": "a", "profiles": {"Ann": "x",}}`, err: ErrMalformedJSON},
	{name: "single-quoted pseudo JSON", raw: `{'response': 'hi'}`, err: ErrMalformedJSON},

	// Not a reply.
	{name: "JSON array is not a reply", raw: `[{"response": "hi"}]`, err: ErrNotAReply},
	{name: "JSON number is not a reply", raw: `42`, err: ErrNotAReply},
	{name: "object without reply fields", raw: `{"message": "hello", "ok": true}`, err: ErrNotAReply},
	{name: "empty output", raw: "   \n ", err: ErrEmptyOutput},
	{name: "null as plain word is silence", raw: "null", text: ""},
	{name: "Null in backticks is silence", raw: "`null`", text: ""},

	// Wrong types.
	{name: "numeric response is ignored", raw: `{"response": 42, "summary": "s"}`, text: "", sum: set("s"), noteHas: "response ignored"},
	{name: "summary as object is ignored", raw: `{"response": "hi", "summary": {"text": "x"}}`, text: "hi", sum: unchanged[string](), noteHas: "summary ignored"},
	{name: "profiles as array is ignored", raw: `{"response": "hi", "profiles": ["Ann likes cats"]}`, text: "hi", prof: unchanged[map[string]string](), noteHas: "profiles ignored"},
	{name: "profiles with non-string value is ignored", raw: `{"response": "hi", "profiles": {"Ann": {"likes": "cats"}}}`, text: "hi", prof: unchanged[map[string]string](), noteHas: "not a string"},
	{name: "customization as number is ignored", raw: `{"response": "hi", "customization": 7}`, text: "hi", cust: unchanged[string](), noteHas: "customization ignored"},
	{name: "requestImage as number is ignored", raw: `{"requestImage": 5}`, image: "", noteHas: "requestImage ignored"},

	// Prefixes and nesting.
	{name: "leading [clanker] removed", raw: `{"response": "[clanker] hello there"}`, text: "hello there"},
	{name: "leading [Clanker]: removed in plain text", raw: "[Clanker]: hello there", text: "hello there"},
	{name: "doubled prefix removed", raw: "[clanker] [clanker] hi", text: "hi"},
	{name: "Clanker: name prefix removed", raw: "Clanker: yes, 7pm works", text: "yes, 7pm works"},
	{name: "nested reply object unwrapped", raw: `{"response": "{\"response\": \"inner text\"}"}`, text: "inner text", noteHas: "nested"},
	{name: "JSON-shaped response string is not posted", raw: `{"response": "{\"broken\": "}`, err: ErrMalformedJSON},
	{name: "response string null word is silence", raw: `{"response": "null"}`, text: ""},

	// Plain text.
	{name: "plain conversational text", raw: "Haha that's a great idea, I'm in.", text: "Haha that's a great idea, I'm in."},
	{name: "plain text with harmless braces", raw: "The set {1, 2, 3} has three items.", text: "The set {1, 2, 3} has three items."},

	// Oversized.
	{name: "oversized reply is shortened", raw: `{"response": "` + long + `"}`, noteHas: "reply shortened"},
	{name: "oversized summary is capped", raw: `{"response": null, "summary": "` + long + `"}`, noteHas: "summary cut"},
	{name: "oversized customization is capped", raw: `{"response": null, "customization": "` + long + `"}`, noteHas: "customization cut"},
	{name: "too many profiles are ignored", raw: `{"response": null, "profiles": ` + manyProfiles(MaxProfiles+1) + `}`, prof: unchanged[map[string]string](), noteHas: "exceed the cap"},
}

func manyProfiles(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"Person%d": "notes"`, i)
	}
	b.WriteString("}")
	return b.String()
}

func TestParseReplyCorpus(t *testing.T) {
	if len(replyCorpus) < 30 {
		t.Fatalf("corpus has %d cases, want at least 30", len(replyCorpus))
	}
	for _, tc := range replyCorpus {
		t.Run(tc.name, func(t *testing.T) {
			r, notes, err := ParseReply(tc.raw)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("ParseReply(%q): want error %v, got reply %+v err %v", short(tc.raw), tc.err, r, err)
				}
				if r.Text != "" {
					t.Fatalf("an error result must carry no text, got %q", r.Text)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseReply(%q): want a reply, got error %v", short(tc.raw), err)
			}
			if !strings.HasPrefix(tc.name, "oversized reply") && r.Text != tc.text {
				t.Errorf("text: want %q, got %q", tc.text, r.Text)
			}
			if r.RequestImage != tc.image {
				t.Errorf("requestImage: want %q, got %q", tc.image, r.RequestImage)
			}
			sum, cust, prof := changes(r.Update)
			if tc.sum != nil && sum != *tc.sum {
				t.Errorf("summary: want %+v, got %+v", *tc.sum, sum)
			}
			if tc.cust != nil && cust != *tc.cust {
				t.Errorf("customization: want %+v, got %+v", *tc.cust, cust)
			}
			if tc.prof != nil && (prof.Set != tc.prof.Set || !maps.Equal(prof.Value, tc.prof.Value)) {
				t.Errorf("profiles: want %+v, got %+v", *tc.prof, prof)
			}
			if tc.noteHas != "" && !strings.Contains(strings.Join(notes, "|"), tc.noteHas) {
				t.Errorf("notes: want one containing %q, got %q", tc.noteHas, notes)
			}
			assertPostable(t, r)
		})
	}
}

// assertPostable checks the invariant that holds for every reply text,
// whatever the input: no JSON, no reasoning, no "null", no prefix, capped.
func assertPostable(t *testing.T, r engine.Reply) {
	t.Helper()
	if r.Text == "" {
		return
	}
	lower := strings.ToLower(r.Text)
	for _, bad := range []string{"<think", "</think", `{"response"`, "```", "[clanker]"} {
		if strings.Contains(lower, bad) {
			t.Errorf("reply text %q contains %q, which must never be posted", short(r.Text), bad)
		}
	}
	if lower == "null" {
		t.Errorf("reply text is the word null")
	}
	if n := utf8.RuneCountInString(r.Text); n > MaxReplyRunes {
		t.Errorf("reply text has %d runes, cap is %d", n, MaxReplyRunes)
	}
	sum, cust, _ := changes(r.Update)
	if utf8.RuneCountInString(sum.Value) > MaxSummaryRunes || utf8.RuneCountInString(cust.Value) > MaxCustomizationRunes {
		t.Errorf("a stored field exceeds its cap")
	}
}

func TestOversizedReplyIsCutAtAWordAndMarked(t *testing.T) {
	r, _, err := ParseReply(`{"response": "` + long + `"}`)
	if err != nil {
		t.Fatalf("want a shortened reply, got error %v", err)
	}
	if !strings.HasSuffix(r.Text, "word…") {
		t.Errorf("want the reply to end at a whole word with an ellipsis, got ...%q", r.Text[len(r.Text)-20:])
	}
}

func TestRequestImageIsNotSilenceButNullIs(t *testing.T) {
	r, _, err := ParseReply(`{"requestImage": "blob:https://messages.google.com/x"}`)
	if err != nil || r.RequestImage == "" {
		t.Fatalf("an image request is not silence: reply %+v err %v", r, err)
	}
	r, _, _ = ParseReply(`{"response": null}`)
	if r.Text != "" || r.RequestImage != "" {
		t.Fatalf("a null response must be silent, got %+v", r)
	}
}

// FuzzParseReply checks the posting invariant on arbitrary model output.
func FuzzParseReply(f *testing.F) {
	for _, tc := range replyCorpus {
		f.Add(tc.raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r, _, err := ParseReply(raw)
		if err != nil && r.Text != "" {
			t.Fatalf("error %v returned with text %q", err, r.Text)
		}
		if strings.Contains(strings.ToLower(r.Text), "<think>") {
			t.Fatalf("reasoning tag in reply %q", r.Text)
		}
		if utf8.RuneCountInString(r.Text) > MaxReplyRunes {
			t.Fatalf("reply over cap")
		}
	})
}

func short(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// Bytes that are not valid UTF-8 (which the JSON decoder turns into U+FFFD) or the
// replacement character itself make the answer garbled: nothing of it is posted, not even
// a reply string that looks complete, and the user is told why.
func TestGarbledOutputIsRefusedNotPostedWithHoles(t *testing.T) {
	for _, raw := range []string{
		"bad \xff\xfe bytes \xc3( here",
		"bad \uFFFD\uFFFD bytes \uFFFD( here",
		"{\"response\": \"fine words\", \"summary\": \"Ann \uFFFD asked\"}",
		"```json\n{\"response\": \"caf\xc3\"}\n```",
	} {
		reply, _, err := ParseReply(raw)
		if !errors.Is(err, ErrGarbled) {
			t.Errorf("ParseReply(%q) = %+v, %v; want ErrGarbled", raw, reply, err)
			continue
		}
		if le := engineError(err); !strings.Contains(le.UserText, "garbled") {
			t.Errorf("user text for %q = %q, want it to say the answer was garbled", raw, le.UserText)
		}
	}
	if reply, _, err := ParseReply(`{"response": "café ☕ naïve 😀"}`); err != nil || reply.Text != "café ☕ naïve 😀" {
		t.Errorf("valid non-ASCII text = %+v, %v; want it kept", reply, err)
	}
}
