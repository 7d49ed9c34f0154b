// Package diag builds a diagnostics report from domain data (Build) and its two
// views: the full one the user looks at on their own machine, and a sanitised
// one they can attach to a bug report. All are pure functions over plain
// values, so they can be tested exhaustively and used on recorded page
// fixtures as well as on live state. The package imports only the domain.
//
// The API key never appears in either view: callers pass it (and any other
// secret) and every string is scrubbed of it, and of anything shaped like an
// API key or bearer token, before it leaves this package.
package diag

import (
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// MessageReport is one chat message as a report shows it. It is the report's export format,
// not the domain's message (engine.Message): every field is a display string with a JSON
// name, so the two views can map each one.
type MessageReport struct {
	ID        string    `json:"id"`
	Sender    string    `json:"sender"`
	Text      string    `json:"text"`
	Type      string    `json:"type,omitempty"` // text, image, text+image
	ImageSrc  string    `json:"imageSrc,omitempty"`
	IsClanker bool      `json:"isClanker,omitempty"`
	Time      time.Time `json:"time,omitzero"`
}

// ConversationReport is what a report says about one conversation: stored data, the
// visible messages and free-form runtime state, as display strings (see Build for where they
// come from).
type ConversationReport struct {
	ID string `json:"id"`
	// Name is the conversation's name as the sidebar shows it (a person or a group):
	// redacted like every name in a sanitised report.
	Name          string            `json:"name,omitempty"`
	Mode          string            `json:"mode"`
	ModelOverride string            `json:"modelOverride,omitempty"`
	Summary       string            `json:"summary,omitempty"`
	Customization string            `json:"customization,omitempty"`
	Profiles      map[string]string `json:"profiles,omitempty"`
	Participants  []string          `json:"participants,omitempty"`
	LastMessage   *MessageReport    `json:"lastMessage,omitempty"`
	Messages      []MessageReport   `json:"messages,omitempty"`
	// Fields holds runtime state (pending response, in-flight request, ...)
	// as display strings; values are scrubbed like free text.
	Fields map[string]string `json:"fields,omitempty"`
}

// Report is a whole diagnostics report, raw until it passes through Sanitize or Unsanitized.
type Report struct {
	GeneratedAt time.Time `json:"generatedAt"`
	AppVersion  string    `json:"appVersion,omitempty"`
	// UserName is the configured local user name.
	UserName string `json:"userName,omitempty"`
	// Settings are display strings of the settings (never the API key; the
	// caller may include the masked key).
	Settings      map[string]string    `json:"settings,omitempty"`
	Conversations []ConversationReport `json:"conversations,omitempty"`
	// Notes are free-form lines: recent warnings, page state, and so on.
	Notes  []string          `json:"notes,omitempty"`
	Fields map[string]string `json:"fields,omitempty"`
}

// Unsanitized returns a copy of s for the user's own eyes: everything is kept
// except secrets, which are replaced wherever they occur.
func Unsanitized(s Report, secrets ...string) Report {
	r := newScrubber(secrets)
	return mapReport(s, reportFuncs{
		name:    r.scrub,
		text:    r.scrub,
		message: r.scrub,
		id:      r.scrub,
		image:   r.scrub,
	})
}

// Sanitize returns a copy of s that can be shared: names become User001...,
// phone numbers in any format become (001) XXX-XXXX (the same number always
// gets the same label), URLs keep only their scheme, blob image ids are
// masked, e-mail addresses and IDs are replaced, and message text is replaced
// by its length. Summaries, customizations, profile notes, notes and fields
// keep their wording with all of the above removed, since that is what makes
// a report useful. Mode, types, counts and times are kept.
func Sanitize(s Report, secrets ...string) Report {
	r := NewRedactor(reportNames(s), secrets...)
	return mapReport(s, reportFuncs{
		name:    r.Name,
		text:    r.Text,
		message: r.MessageText,
		id:      r.ID,
		image:   r.Text,
	})
}

// JSON renders a snapshot (either view) as indented JSON.
func JSON(s Report) ([]byte, error) {
	return json.MarshalIndent(s, "", "  ")
}

// reportNames lists every person name in s, in first-seen order: the
// configured user, conversation names, participants, senders and profile keys.
func reportNames(s Report) []string {
	var names []string
	add := func(n string) { names = append(names, n) }
	add(s.UserName)
	for _, c := range s.Conversations {
		for _, p := range c.Participants {
			add(p)
		}
		if c.LastMessage != nil {
			add(c.LastMessage.Sender)
		}
		for _, m := range c.Messages {
			add(m.Sender)
		}
		for _, k := range slices.Sorted(maps.Keys(c.Profiles)) {
			add(k)
		}
		add(c.Name)
	}
	return names
}

type reportFuncs struct {
	name, text, message, id, image func(string) string
}

func mapReport(s Report, f reportFuncs) Report {
	out := Report{
		GeneratedAt: s.GeneratedAt,
		AppVersion:  f.text(s.AppVersion),
		UserName:    f.name(s.UserName),
		Settings:    mapStrings(s.Settings, f.text),
		Fields:      mapStrings(s.Fields, f.text),
	}
	for _, n := range s.Notes {
		out.Notes = append(out.Notes, f.text(n))
	}
	for _, c := range s.Conversations {
		oc := ConversationReport{
			ID:            f.id(c.ID),
			Name:          f.name(c.Name),
			Mode:          f.text(c.Mode),
			ModelOverride: f.text(c.ModelOverride),
			Summary:       f.text(c.Summary),
			Customization: f.text(c.Customization),
			Fields:        mapStrings(c.Fields, f.text),
		}
		if c.Profiles != nil {
			oc.Profiles = make(map[string]string, len(c.Profiles))
			for k, v := range c.Profiles {
				oc.Profiles[f.name(k)] = f.text(v)
			}
		}
		for _, p := range c.Participants {
			oc.Participants = append(oc.Participants, f.name(p))
		}
		if c.LastMessage != nil {
			m := mapMessage(*c.LastMessage, f)
			oc.LastMessage = &m
		}
		for _, m := range c.Messages {
			oc.Messages = append(oc.Messages, mapMessage(m, f))
		}
		out.Conversations = append(out.Conversations, oc)
	}
	return out
}

func mapMessage(m MessageReport, f reportFuncs) MessageReport {
	return MessageReport{
		ID:        f.id(m.ID),
		Sender:    f.name(m.Sender),
		Text:      f.message(m.Text),
		Type:      f.text(m.Type),
		ImageSrc:  f.image(m.ImageSrc),
		IsClanker: m.IsClanker,
		Time:      m.Time,
	}
}

// mapStrings applies fn to keys and values, since keys of free-form maps can
// carry identifiers too.
func mapStrings(m map[string]string, fn func(string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[fn(k)] = fn(v)
	}
	return out
}
