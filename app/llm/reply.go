package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Size caps for what the model may store or post. The model output is
// untrusted: a runaway model must not be able to fill the database or post a
// novel into an SMS thread.
const (
	// MaxReplyRunes caps the posted reply: the engine's cap, which it enforces again.
	MaxReplyRunes = engine.MaxReplyRunes
	// MaxSummaryRunes caps the stored conversation summary.
	MaxSummaryRunes = engine.MaxSummaryRunes
	// MaxCustomizationRunes caps the stored persona directive.
	MaxCustomizationRunes = engine.MaxCustomizationRunes
	// MaxProfiles caps the number of participant profiles kept.
	MaxProfiles = engine.MaxProfiles
	// MaxProfileNameRunes caps one profile key (a participant name).
	MaxProfileNameRunes = engine.MaxProfileNameRunes
	// MaxProfileRunes caps the notes kept for one participant.
	MaxProfileRunes = engine.MaxProfileRunes
	// MaxImageSrcBytes caps a requested image reference.
	MaxImageSrcBytes = 2048
)

// Parse errors. Every one of them means "post nothing": the caller logs it
// and, where the user would otherwise wonder, shows a toast.
var (
	// ErrEmptyOutput means the model returned nothing usable (empty text or
	// only a reasoning block).
	ErrEmptyOutput = errors.New("model returned no reply text")
	// ErrReasoningOnly means the output is an unfinished reasoning block.
	ErrReasoningOnly = errors.New("model output is unfinished reasoning")
	// ErrMalformedJSON means the output looks like JSON but is broken or
	// truncated, so it must not be posted as text.
	ErrMalformedJSON = errors.New("model output is malformed JSON")
	// ErrNotAReply means the output is valid JSON that is not a reply object
	// (an array, a number, an object with none of the reply fields).
	ErrNotAReply = errors.New("model output is JSON but not a reply object")
	// ErrTruncated means the provider stopped the output at the token limit
	// even after one retry with more room.
	ErrTruncated = errors.New("model output was cut off by the token limit")
	// ErrGarbled means the output held bytes that are not valid UTF-8 (the JSON decoder
	// turns them into U+FFFD) or the replacement character itself: a broken answer that
	// must not be posted with its holes in it.
	ErrGarbled = errors.New("model output holds bytes that are not valid text")
)

var (
	// reasoningBlock matches closed reasoning blocks that some models emit
	// inline (DeepSeek R1, Qwen, QwQ and friends).
	reasoningBlock = regexp.MustCompile(`(?is)<(think|thinking|reasoning|reflection|thought)>.*?</(think|thinking|reasoning|reflection|thought)>`)
	// reasoningOpen finds an opening tag whose block never closes.
	reasoningOpen = regexp.MustCompile(`(?i)<(think|thinking|reasoning|reflection|thought)>`)
	// reasoningClose finds a closing tag without its opening tag (chat
	// templates that put <think> in the prompt produce this).
	reasoningClose = regexp.MustCompile(`(?i)</(think|thinking|reasoning|reflection|thought)>`)
	// fence matches a Markdown code fence with an optional language tag.
	fence = regexp.MustCompile("(?s)```[a-zA-Z0-9_-]*[ \t]*\r?\n?(.*?)```")
	// jsonish spots text that is trying to be a JSON object.
	jsonish = regexp.MustCompile(`\{\s*"`)
	// clankerPrefix matches prefixes a model adds in imitation of the chat:
	// "[clanker]", "[Clanker]:", "Clanker:" (repeated or combined).
	clankerPrefix = regexp.MustCompile(`(?i)^\s*(\[\s*clanker\s*\]\s*:?|clanker\s*:)\s*`)
)

// ParseReply turns raw model output into the engine's Reply. Text is what to
// post, without the "[clanker] " prefix (the app adds its own); an empty Text
// means Clanker stays silent; a RequestImage wins over Text. Fields the model
// left out leave the stored memory unchanged. notes lists fields that were
// ignored or cut, for the debug log.
//
// It accepts a JSON object on its own, inside a code fence or surrounded by
// prose, and plain conversational text. It never returns raw JSON, truncated
// JSON, "null" or reasoning text as reply text: those come back as one of the
// Err* values.
func ParseReply(raw string) (reply engine.Reply, notes []string, err error) {
	reply, err = parseReply(raw, &notes)
	return reply, notes, err
}

func parseReply(raw string, notes *[]string) (engine.Reply, error) {
	if strings.ContainsRune(raw, utf8.RuneError) { // also finds bytes that are not UTF-8
		return engine.Reply{}, fmt.Errorf("%w (%d bytes)", ErrGarbled, len(raw))
	}
	text, err := stripReasoning(raw)
	if err != nil {
		return engine.Reply{}, err
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return engine.Reply{}, ErrEmptyOutput
	}

	// 1. The whole output is JSON.
	if v, ok := decodeWhole(text); ok {
		return fromJSONValue(v, notes)
	}
	// 2. A JSON object inside a code fence.
	for _, m := range fence.FindAllStringSubmatch(text, -1) {
		body := strings.TrimSpace(m[1])
		if v, ok := decodeWhole(body); ok {
			if obj, isObj := v.(map[string]json.RawMessage); isObj && hasReplyKey(obj) {
				return fromObject(obj, notes)
			}
			if v == nil {
				return engine.Reply{}, nil
			}
		}
	}
	// 3. A JSON object somewhere in prose.
	if obj, ok := findEmbeddedObject(text); ok {
		return fromObject(obj, notes)
	}
	// 4. Broken JSON: recover a complete "response" string if there is one,
	// otherwise refuse to post anything.
	if looksLikeJSON(text) {
		if r, ok := recoverResponse(text, notes); ok {
			return r, nil
		}
		return engine.Reply{}, fmt.Errorf("%w (%d bytes)", ErrMalformedJSON, len(text))
	}
	// 5. Plain conversational text.
	if strings.EqualFold(strings.Trim(text, "`\"' ."), "null") {
		return engine.Reply{}, nil
	}
	t, err := textReply(text, notes)
	return engine.Reply{Text: t}, err
}

// stripReasoning removes reasoning blocks. An opening tag that never closes
// means the whole rest is reasoning; a closing tag with no opening tag means
// everything before it is reasoning.
func stripReasoning(s string) (string, error) {
	s = reasoningBlock.ReplaceAllString(s, "")
	if loc := reasoningClose.FindStringIndex(s); loc != nil {
		s = s[loc[1]:]
	}
	if loc := reasoningOpen.FindStringIndex(s); loc != nil {
		rest := strings.TrimSpace(s[:loc[0]])
		if rest == "" {
			return "", ErrReasoningOnly
		}
		s = rest
	}
	return s, nil
}

// decodeWhole decodes s as exactly one JSON value. Objects come back as
// map[string]json.RawMessage so field types can be checked one by one.
func decodeWhole(s string) (any, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, false
	}
	if dec.More() {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false // trailing garbage
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &obj); err != nil {
			return nil, false
		}
		return obj, true
	}
	var v any
	if err := json.Unmarshal(trimmed, &v); err != nil {
		return nil, false
	}
	return v, true
}

// fromJSONValue interprets a whole-output JSON value.
func fromJSONValue(v any, notes *[]string) (engine.Reply, error) {
	switch x := v.(type) {
	case nil:
		return engine.Reply{}, nil // a bare null: stay silent
	case map[string]json.RawMessage:
		if !hasReplyKey(x) {
			return engine.Reply{}, fmt.Errorf("%w: object has none of the reply fields", ErrNotAReply)
		}
		return fromObject(x, notes)
	case string:
		// A bare JSON string is the model quoting its reply.
		if strings.TrimSpace(x) == "" {
			return engine.Reply{}, ErrEmptyOutput
		}
		t, err := textReply(x, notes)
		return engine.Reply{Text: t}, err
	default:
		return engine.Reply{}, fmt.Errorf("%w: got %T", ErrNotAReply, v)
	}
}

var replyKeys = []string{"response", "summary", "customization", "profiles", "requestImage"}

func hasReplyKey(obj map[string]json.RawMessage) bool {
	for _, k := range replyKeys {
		if _, ok := obj[k]; ok {
			return true
		}
	}
	return false
}

// findEmbeddedObject scans for balanced {...} spans (string-aware) and
// returns the first one that decodes to a reply object.
func findEmbeddedObject(s string) (map[string]json.RawMessage, bool) {
	for start := strings.IndexByte(s, '{'); start >= 0; {
		end := matchBrace(s, start)
		if end > 0 {
			if v, ok := decodeWhole(s[start : end+1]); ok {
				if obj, isObj := v.(map[string]json.RawMessage); isObj && hasReplyKey(obj) {
					return obj, true
				}
			}
		}
		next := strings.IndexByte(s[start+1:], '{')
		if next < 0 {
			break
		}
		start += next + 1
	}
	return nil, false
}

// matchBrace returns the index of the brace closing the one at start, or -1.
func matchBrace(s string, start int) int {
	depth, inStr, esc := 0, false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func looksLikeJSON(s string) bool {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "[{") {
		return true
	}
	return jsonish.MatchString(t)
}

// recoverResponse walks a broken object token by token and keeps a
// "response" string only if it was read completely. Everything else in a
// broken object (summary, profiles) is discarded: half a summary must not
// replace a whole one.
func recoverResponse(s string, notes *[]string) (engine.Reply, bool) {
	start := strings.IndexByte(s, '{')
	if start < 0 {
		return engine.Reply{}, false
	}
	dec := json.NewDecoder(strings.NewReader(s[start:]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return engine.Reply{}, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return engine.Reply{}, false
		}
		key, ok := tok.(string)
		if !ok {
			return engine.Reply{}, false
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return engine.Reply{}, false
		}
		if key == "response" {
			var text string
			if json.Unmarshal(val, &text) != nil {
				return engine.Reply{}, false
			}
			n := []string{"recovered the response field from broken JSON; other fields dropped"}
			t, err := textReply(text, &n)
			if err != nil {
				return engine.Reply{}, false
			}
			*notes = append(*notes, n...)
			return engine.Reply{Text: t}, true
		}
	}
	return engine.Reply{}, false
}

// fromObject applies the field rules to a decoded reply object: an absent
// field changes nothing, a null customization or profiles clears it, and
// profiles replace the stored ones.
func fromObject(obj map[string]json.RawMessage, notes *[]string) (engine.Reply, error) {
	var r engine.Reply
	note := func(format string, args ...any) { *notes = append(*notes, fmt.Sprintf(format, args...)) }

	if raw, ok := obj["response"]; ok {
		var text string
		switch {
		case isNull(raw):
		case json.Unmarshal(raw, &text) == nil:
			t, err := textReply(text, notes)
			if err != nil {
				return engine.Reply{}, err
			}
			r.Text = t
		default:
			note("response ignored: expected a string or null, got %s", jsonKind(raw))
		}
	}

	if raw, ok := obj["summary"]; ok {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			if s = strings.TrimSpace(s); s != "" {
				s = capRunes(s, MaxSummaryRunes, notes, "summary")
				r.Update.Summary = &s
			}
		} else if !isNull(raw) {
			note("summary ignored: expected a string, got %s", jsonKind(raw))
		}
	}

	if raw, ok := obj["customization"]; ok {
		var s string
		switch {
		case isNull(raw):
			r.Update.CustomizationSet = true
		case json.Unmarshal(raw, &s) == nil:
			r.Update.CustomizationSet = true
			if s = capRunes(strings.TrimSpace(s), MaxCustomizationRunes, notes, "customization"); s != "" {
				r.Update.Customization = &s
			}
		default:
			note("customization ignored: expected a string or null, got %s", jsonKind(raw))
		}
	}

	if raw, ok := obj["profiles"]; ok {
		if p, ok := parseProfiles(raw, notes); ok {
			r.Update.ProfilesSet, r.Update.Profiles = true, p
		}
	}

	if raw, ok := obj["requestImage"]; ok && !isNull(raw) {
		var src string
		if json.Unmarshal(raw, &src) == nil && strings.TrimSpace(src) != "" && len(src) <= MaxImageSrcBytes {
			r.RequestImage = strings.TrimSpace(src)
		} else {
			note("requestImage ignored: expected a short non-empty string, got %s", jsonKind(raw))
		}
	}
	return r, nil
}

// parseProfiles accepts an object whose values are all strings (null or {}
// clears). Anything else leaves the stored profiles untouched.
func parseProfiles(raw json.RawMessage, notes *[]string) (map[string]string, bool) {
	if isNull(raw) {
		return nil, true
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		*notes = append(*notes, fmt.Sprintf("profiles ignored: expected an object of strings, got %s", jsonKind(raw)))
		return nil, false
	}
	out := make(map[string]string, len(obj))
	for name, v := range obj {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			*notes = append(*notes, fmt.Sprintf("profiles ignored: value for one participant is %s, not a string", jsonKind(v)))
			return nil, false
		}
		name = strings.TrimSpace(name)
		s = strings.TrimSpace(s)
		if name == "" || s == "" {
			continue
		}
		if utf8.RuneCountInString(name) > MaxProfileNameRunes {
			*notes = append(*notes, "profiles: dropped an entry with an over-long name")
			continue
		}
		out[name] = capRunes(s, MaxProfileRunes, notes, "profile for "+name)
	}
	if len(out) > MaxProfiles {
		*notes = append(*notes, fmt.Sprintf("profiles ignored: %d entries exceed the cap of %d", len(out), MaxProfiles))
		return nil, false
	}
	if len(out) == 0 {
		return nil, true
	}
	return out, true
}

// textReply cleans reply text: reasoning, a model-added "[clanker]" prefix,
// and JSON the model nested inside its own response string.
func textReply(text string, notes *[]string) (string, error) {
	text, err := stripReasoning(text)
	if err != nil {
		return "", err
	}
	text = strings.TrimSpace(text)
	for {
		loc := clankerPrefix.FindStringIndex(text)
		if loc == nil || loc[1] == 0 {
			break
		}
		text = strings.TrimSpace(text[loc[1]:])
	}
	if looksLikeJSON(text) {
		// The model wrapped a reply object inside its reply. Unwrap one level;
		// anything else JSON-shaped is not fit to post.
		if v, ok := decodeWhole(text); ok {
			if obj, isObj := v.(map[string]json.RawMessage); isObj && hasReplyKey(obj) {
				if _, nested := obj["response"]; nested {
					// Only the text of the nested object counts; its other
					// fields were not meant as memory updates.
					var ignored []string
					inner, err := fromObject(obj, &ignored)
					if err != nil {
						return "", err
					}
					*notes = append(*notes, "unwrapped a reply object nested in the response")
					return inner.Text, nil
				}
			}
		}
		return "", fmt.Errorf("%w: response text is JSON-shaped", ErrMalformedJSON)
	}
	if strings.EqualFold(text, "null") {
		return "", nil
	}
	return capReply(text, notes), nil
}

// capReply shortens an over-long reply at a word boundary and marks the cut.
func capReply(s string, notes *[]string) string {
	if utf8.RuneCountInString(s) <= MaxReplyRunes {
		return s
	}
	r := []rune(s)[:MaxReplyRunes-1]
	cut := string(r)
	if i := strings.LastIndexAny(cut, " \n\t"); i > len(cut)/2 {
		cut = cut[:i]
	}
	*notes = append(*notes, fmt.Sprintf("reply shortened from %d to %d characters", utf8.RuneCountInString(s), MaxReplyRunes))
	return strings.TrimSpace(cut) + "…"
}

func capRunes(s string, max int, notes *[]string, what string) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	*notes = append(*notes, fmt.Sprintf("%s cut to %d characters", what, max))
	return string([]rune(s)[:max])
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}
