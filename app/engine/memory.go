package engine

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on memory the user edits in the settings window. The LLM adapter caps what the
// model writes with the same constants, so an edited memory costs no more prompt than a
// model-written one.
const (
	MaxSummaryRunes       = 6000
	MaxCustomizationRunes = 500
	MaxProfiles           = 40
	MaxProfileNameRunes   = 80
	MaxProfileRunes       = 800
)

// Field names of memory errors (FieldError.Field), as the settings page names its inputs.
const (
	FieldSummary       = "summary"
	FieldCustomization = "customization"
	FieldProfiles      = "profiles"
	FieldModelOverride = "modelOverride"
)

// EditMemory replaces (or, with an empty Memory, clears) what Clanker remembers about one
// conversation on the user's behalf, from the settings window. It goes through the engine
// for the same reason Purge does: a request in flight for that conversation was built from
// the old memory, and its context update would otherwise be written over the user's edit.
// The engine marks that request so its answer is still posted but its context update is
// not saved, then calls Apply on its own goroutine. Nothing else is stopped: replies already
// computed have saved their updates before the edit, and requests made later read the new
// memory. Done, when non-nil, receives Apply's error; it must have room for one value.
type EditMemory struct {
	Conversation ConversationID
	Apply        func() error
	Done         chan<- error
}

func (e EditMemory) validate() error {
	if e.Apply == nil {
		return fmt.Errorf("memory edit without an Apply function")
	}
	return validateConvID(e.Conversation)
}

// onEditMemory keeps the answer in flight from saving memory, then lets the caller write
// the user's memory (see EditMemory).
func (e *Engine) onEditMemory(ev EditMemory) {
	if in := e.replies.inflight; in != nil && in.req.Conversation == ev.Conversation {
		in.memoryEdited = true
	}
	err := ev.Apply()
	if ev.Done != nil {
		ev.Done <- err
	}
	if err != nil {
		e.log.Error("engine: memory edit failed", "conversation", ev.Conversation, "err", err)
		return
	}
	e.log.Info("engine: memory edited by the user", "conversation", ev.Conversation)
}

// promptHeadingRE matches a line that looks like one of the bracketed headings the LLM
// adapter uses to mark the parts of its prompt ("[MEMORY - ...]", "[PARTICIPANT PROFILES]",
// "[12 older messages ...]"). Short bracketed words ("[OK]") are ordinary text.
var promptHeadingRE = regexp.MustCompile(`(?m)^[ \t]*\[([A-Z][A-Z0-9 _/-]{2,}(\]| -)|\d+ older messages)`)

// NormalizeMemory trims the edges of every text, turns Windows line ends into plain ones and drops profiles whose name and notes
// are both empty, so a blank row in the editor stores nothing.
func NormalizeMemory(m Memory) Memory {
	clean := func(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n")) }
	out := Memory{Summary: clean(m.Summary), Customization: clean(m.Customization), Profiles: map[string]string{}}
	for name, notes := range m.Profiles {
		name, notes = strings.TrimSpace(name), clean(notes)
		if name == "" && notes == "" {
			continue
		}
		out.Profiles[name] = notes
	}
	return out
}

// ValidateMemory checks memory the user typed and returns FieldErrors (nil when all is
// well). The memory goes into every prompt for its conversation, so it must stay data:
// lengths are capped, control characters are refused, and no line may look like one of
// the prompt's own headings, which would let edited text pose as a part of the prompt.
func ValidateMemory(m Memory) error {
	var es FieldErrors
	add := func(field, format string, args ...any) {
		es = append(es, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if n := utf8.RuneCountInString(m.Summary); n > MaxSummaryRunes {
		add(FieldSummary, "The summary is too long (%d characters; at most %d).", n, MaxSummaryRunes)
	}
	if bad := memoryTextProblem(m.Summary); bad != "" {
		add(FieldSummary, "The summary cannot contain %s.", bad)
	}
	if n := utf8.RuneCountInString(m.Customization); n > MaxCustomizationRunes {
		add(FieldCustomization, "The persona customisation is too long (%d characters; at most %d).", n, MaxCustomizationRunes)
	}
	if bad := memoryTextProblem(m.Customization); bad != "" {
		add(FieldCustomization, "The persona customisation cannot contain %s.", bad)
	}
	if len(m.Profiles) > MaxProfiles {
		add(FieldProfiles, "At most %d participant profiles can be kept (there are %d).", MaxProfiles, len(m.Profiles))
	}
	names := make([]string, 0, len(m.Profiles))
	for name := range m.Profiles {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		notes := m.Profiles[name]
		switch {
		case strings.TrimSpace(name) == "":
			add(FieldProfiles, "Every participant profile needs a name.")
		case utf8.RuneCountInString(name) > MaxProfileNameRunes:
			add(FieldProfiles, "A participant name in the profiles is too long (at most %d characters).", MaxProfileNameRunes)
		case textProblem(name) != "":
			add(FieldProfiles, "The participant name %q cannot contain %s.", name, textProblem(name))
		case utf8.RuneCountInString(notes) > MaxProfileRunes:
			add(FieldProfiles, "The profile of %s is too long (%d characters; at most %d).", name, utf8.RuneCountInString(notes), MaxProfileRunes)
		case memoryTextProblem(notes) != "":
			add(FieldProfiles, "The profile of %s cannot contain %s.", name, memoryTextProblem(notes))
		}
	}
	if len(es) == 0 {
		return nil
	}
	return es
}

// memoryTextProblem is textProblem for multi-line memory text: line breaks are fine,
// other control characters, invisible direction marks and prompt headings are not.
func memoryTextProblem(v string) string {
	if !utf8.ValidString(v) {
		return "bytes that are not valid text (UTF-8)"
	}
	for _, r := range v {
		if r == '\n' {
			continue
		}
		if unicode.IsControl(r) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0xfeff {
			return "control characters, tabs or escape sequences"
		}
	}
	if promptHeadingRE.MatchString(v) {
		return "a line that starts like a heading of Clanker's prompt (an opening bracket followed by capital letters, such as [MEMORY]); write it in lower case or without the bracket"
	}
	return ""
}

// ValidateModelOverride checks a per-conversation model name ("" means the global model)
// with the rules of the model setting, and returns a sentence for the user or "".
func ValidateModelOverride(model string) string {
	if utf8.RuneCountInString(model) > MaxModelLength {
		return fmt.Sprintf("The model name is too long (at most %d characters).", MaxModelLength)
	}
	if bad := textProblem(model); bad != "" {
		return fmt.Sprintf("The model name cannot contain %s.", bad)
	}
	return ""
}
