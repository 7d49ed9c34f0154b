package engine

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Prefix starts every text Clanker sends, so that people in the conversation always know a
// message was written by a model.
const Prefix = "[clanker] "

// Fixed announcement texts. The Active greeting is written by the model; ActiveFallbackText is
// used when the model fails, answers nonsense, or another request is already in flight.
const (
	AvailableText      = Prefix + "AI is available but will only reply if you address it directly by name."
	DeactivatedText    = Prefix + "The AI has been deactivated for this conversation."
	ActiveFallbackText = Prefix + "AI is now active and participating in this conversation."
	OverlayText        = "Clanker is processing an inactive conversation, please wait..."
)

// Mode is a conversation's participation mode. It is a string so that stored values and logs
// stay readable; the empty string is read as Deactivated, the default for unknown conversations.
type Mode string

// The four modes. Uninitialized is never stored: it is what every conversation shows while the
// configuration is incomplete.
const (
	ModeUninitialized Mode = "uninitialized"
	ModeDeactivated   Mode = "deactivated"
	ModeAvailable     Mode = "available"
	ModeActive        Mode = "active"
)

// normalized maps the zero value and anything unexpected to Deactivated, the only safe default.
func (m Mode) normalized() Mode {
	switch m {
	case ModeAvailable, ModeActive:
		return m
	}
	return ModeDeactivated
}

// participating reports whether the mode lets Clanker speak at all.
func (m Mode) participating() bool { return m == ModeAvailable || m == ModeActive }

// ConversationID is the id Google Messages puts in the URL and the sidebar anchors.
type ConversationID string

// Direction says whether the page shows a message as sent from this device or received.
type Direction int

// Message directions.
const (
	Incoming Direction = iota
	Outgoing
)

// Image is one still image attached to a message.
type Image struct {
	Src string // blob: URL the page can fetch
	Alt string
}

// Message is one message as the bridge parsed it. The page is untrusted, so Validate bounds
// every field before the engine looks at it.
type Message struct {
	ID        string
	Sender    string // "You" for the local user, as the page labels it
	Direction Direction
	Text      string
	Images    []Image
	// OwnClanker and OtherClanker may be set by the bridge; the engine also derives them from
	// the direction and the prefix, so a bridge that forgets cannot create a reply loop.
	OwnClanker   bool
	OtherClanker bool
	Unsupported  bool   // video, file or other attachment the model cannot see
	Quoted       string // text of the message this one replies to, if any
	// QuotedSender is who wrote the quoted message, as the page names it ("You" for the local
	// user, so for this Clanker's own messages too); empty when the page did not say.
	QuotedSender string
	Timestamp    string // the page's own timestamp text
	// LabelPending says the page had not labelled the message yet when it was reported, so
	// who wrote it is unknown (and its direction a guess): a MessageUpdated may bring that.
	// The decision whether it is a trigger waits for it, at most senderWait.
	LabelPending bool
}

// Limits on untrusted page input. They are generous for real conversations and stop a broken or
// hostile page from making the engine hold unbounded memory.
const (
	maxIDLen        = 512
	maxTextLen      = 64 << 10
	maxImages       = 32
	maxMessages     = 2000
	maxParticipants = 512
	maxSidebarRows  = 2000
)

var errEmptyID = errors.New("empty id")

// Validate reports the first problem with a message from the page.
func (m Message) Validate() error {
	if m.ID == "" {
		return errEmptyID
	}
	if len(m.ID) > maxIDLen {
		return fmt.Errorf("message id longer than %d bytes", maxIDLen)
	}
	if len(m.Sender) > maxIDLen || len(m.QuotedSender) > maxIDLen {
		return fmt.Errorf("message %s: sender longer than %d bytes", m.ID, maxIDLen)
	}
	if len(m.Text) > maxTextLen || len(m.Quoted) > maxTextLen {
		return fmt.Errorf("message %s: text longer than %d bytes", m.ID, maxTextLen)
	}
	if !utf8.ValidString(m.Text) || !utf8.ValidString(m.Sender) {
		return fmt.Errorf("message %s: text is not valid UTF-8", m.ID)
	}
	if m.Direction != Incoming && m.Direction != Outgoing {
		return fmt.Errorf("message %s: unknown direction %d", m.ID, m.Direction)
	}
	if len(m.Images) > maxImages {
		return fmt.Errorf("message %s: more than %d images", m.ID, maxImages)
	}
	return nil
}

// IsOwnClanker reports whether the message is one this Clanker sent.
func (m Message) IsOwnClanker() bool {
	return m.OwnClanker || (m.Direction == Outgoing && strings.HasPrefix(m.Text, strings.TrimSpace(Prefix)))
}

// IsOtherClanker reports whether the message was sent by another person's Clanker.
func (m Message) IsOtherClanker() bool {
	if m.IsOwnClanker() {
		return false
	}
	return m.OtherClanker || (m.Direction == Incoming && strings.HasPrefix(strings.TrimSpace(m.Text), strings.TrimSpace(Prefix)))
}

// isHuman reports whether a person (local or remote) wrote the message.
func (m Message) isHuman() bool { return !m.IsOwnClanker() && !m.IsOtherClanker() }

// ref returns what the engine remembers about a message for the hybrid id / sender+text match.
func (m Message) ref() MessageRef { return MessageRef{ID: m.ID, Sender: m.Sender, Text: m.Text} }

// MessageRef identifies a message across the tmp_ to permanent id change: by id first, then by
// sender and text.
type MessageRef struct {
	ID     string
	Sender string
	Text   string
}

// matches applies the hybrid rule. Sender and text stand in for the id only where the id may
// have changed: a pending (tmp_) id becomes a permanent one, never another pending one, and a
// permanent id never changes at all. So a ref that holds a permanent id names that message
// alone, and a message still pending under another id than the ref's is another message, even
// with the same words: people repeat themselves ("clanker are you there?") and Clanker's
// notices repeat theirs.
func (r MessageRef) matches(m Message) bool {
	if r.ID != "" && r.ID == m.ID {
		return true
	}
	if r.ID != "" && !strings.HasPrefix(r.ID, "tmp_") {
		return false
	}
	if r.ID != "" && m.ID != "" && strings.HasPrefix(m.ID, "tmp_") {
		return false
	}
	return r.Text != "" && r.Sender == m.Sender && r.Text == m.Text
}

// IsZero reports whether nothing is remembered.
func (r MessageRef) IsZero() bool { return r.ID == "" && r.Text == "" }

var signatureRE = regexp.MustCompile(`(?i)\[clanker\]`)

var automatedRE = regexp.MustCompile(`^\d{1,10}$`)

// IsAutomatedName reports whether a participant name is a short code or bare number, the mark
// of an automated (A2P) sender that Clanker must never talk to.
func IsAutomatedName(name string) bool { return automatedRE.MatchString(strings.TrimSpace(name)) }

// Participant is one person shown in the conversation header.
type Participant struct {
	Name string
}

// Conversation is everything stored about one conversation. Each part has one writer: the
// engine owns the mode, the last processed message and the timestamps (Store.SaveConversation);
// the model's context updates own Memory (Store.ApplyContext); ModelOverride is a user setting.
// A conversation never stored reads as Deactivated with empty memory.
type Conversation struct {
	ID            ConversationID
	Mode          Mode
	LastProcessed MessageRef
	LastSeen      time.Time // last time it was seen in the sidebar or foreground
	LastMessageAt time.Time // last new message observed (for idle news)
	LastNewsCheck time.Time
	Memory        Memory
	// ModelOverride is the model used for this conversation instead of the global one ("" for
	// the global model).
	ModelOverride string
	// Decided is the newest message covered by a decision: answered by a reply that was sent,
	// declined by the model, released for a reason the user saw (an error, a mode switched
	// off), or the point where Clanker started listening. A message after it that the mode
	// would answer is owed a decision (see owedTrigger).
	Decided MessageRef
	// Announced is the mode the people in the conversation were last told about: the notice
	// of a mode is posted before Clanker acts in it, so it acts only as far as both Mode and
	// Announced allow (see Engine.mode). Empty means never told, read as Deactivated.
	Announced Mode
	// NewestAt is the label time of the newest message processed here (zero when unknown): a
	// message reported as new with an older label time is history, whatever the page says.
	NewestAt time.Time
	// Name is the conversation's name as the sidebar shows it (a person or a group), for the
	// settings window's lists; Header the names its header showed in the last view the engine
	// accepted; Participants the people who wrote in it, in the views the engine accepted. A
	// new view is checked against them before the engine believes it (see viewDisagrees).
	// Saving an empty Name, Header or Participants leaves the stored one.
	Name         string
	Header       []string
	Participants []string
	// Leftover is Clanker's partial text that was left in this conversation's compose box (the
	// user switched away before it could be taken out). Store.SaveLeftover writes it;
	// SaveConversation leaves it as it is stored.
	Leftover string
}

// Memory is the model-maintained part of a conversation: the summary that stands in for older
// messages, the persona the participants asked for, and notes about each participant. The LLM
// adapter puts it into every prompt; the model's ContextUpdate changes it.
type Memory struct {
	Summary       string
	Customization string
	// Profiles maps a participant name to the model's notes about them.
	Profiles map[string]string
}
