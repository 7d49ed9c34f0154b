package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// DefaultStart is the simulator clock's first reading: a fixed moment, so the date and time
// labels in tests are the same on every run.
var DefaultStart = time.Date(2026, time.February, 3, 18, 41, 0, 0, time.UTC)

// Media names the page can show. The bytes are generated in Go (see media.go) and the page turns
// them into blob: URLs, as Google Messages does.
const (
	// MediaPhoto is a 4032x3024 JPEG carrying EXIF orientation 6 (display rotated 90° clockwise).
	MediaPhoto = "photo.jpg"
	// MediaChart is a 300x200 PNG.
	MediaChart = "chart.png"
	// MediaGIF is a small animated GIF.
	MediaGIF = "wave.gif"
)

// Attachment kinds for rows that carry no text or image part (Clanker must ignore them).
const (
	AttachmentVideo = "video"
	AttachmentFile  = "file"
)

// SwapMode says how a pending tmp_ id becomes permanent in the page.
type SwapMode string

const (
	// SwapInPlace changes the data-e2e-message-id attribute on the existing node (no childList
	// mutation, so an observer that ignores attributes does not notice).
	SwapInPlace SwapMode = "in-place"
	// SwapReplace replaces the whole row with a new node carrying the permanent id.
	SwapReplace SwapMode = "replace"
)

// Variant selects a page variant. Several can be combined.
type Variant string

const (
	// VariantSignedOut shows the pairing page with "Sign in with Google" until sign-in completes.
	VariantSignedOut Variant = "signed-out"
	// VariantUnrecognised renders the app with none of the selectors Clanker knows.
	VariantUnrecognised Variant = "unrecognised"
	// VariantSlow keeps each opened conversation empty for Options.SlowDelay (3 s) before its rows appear.
	VariantSlow Variant = "slow"
	// VariantContentEditable uses a contenteditable div as the compose box instead of a textarea.
	VariantContentEditable Variant = "contenteditable"
	// VariantMirror mirrors the textarea's draft into its textContent, so the bridge's draft
	// check is exercised where the draft shows up in both places.
	VariantMirror Variant = "mirror"
)

var knownVariants = map[Variant]bool{
	VariantSignedOut: true, VariantUnrecognised: true, VariantSlow: true,
	VariantContentEditable: true, VariantMirror: true,
}

// Conversation is one thread as the sidebar shows it.
type Conversation struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Participants []string `json:"participants"`
	Pinned       bool     `json:"pinned"`
	Muted        bool     `json:"muted"`
	Unread       bool     `json:"unread"`
	// RCS labels the send button RCS instead of SMS and the status of sent rows.
	RCS bool `json:"rcs"`
	// Snippet is the sidebar preview: "You: text", "Sender: text" (groups) or "text".
	Snippet string `json:"snippet"`
	// Time is the sidebar's relative timestamp, e.g. "6:41 PM".
	Time string `json:"time"`

	activity int // higher = more recent; orders the sidebar
}

// NewConversation is what CreateConversation takes.
type NewConversation struct {
	// Name defaults to the participants joined by ", " (a group is "Dad, Mom").
	Name         string   `json:"name,omitempty"`
	Participants []string `json:"participants"`
	Pinned       bool     `json:"pinned,omitempty"`
	Muted        bool     `json:"muted,omitempty"`
	RCS          bool     `json:"rcs,omitempty"`
}

// Reaction is one person's reaction to a message. In a delivery (Message.Reaction), Target names the
// message reacted to and From who reacted; the target row's labels gain "From reacted with Kind.".
type Reaction struct {
	Target string `json:"target,omitempty"`
	From   string `json:"from"`
	Kind   string `json:"kind"`
}

// Message is one row of a conversation. As Deliver's argument only From, Text, Image, Reaction,
// ReplyTo, Tombstone, Attachment, TimeOnlyLabel and Status are read; the rest is filled in.
type Message struct {
	ID           string `json:"id"`
	Conversation string `json:"conversation"`
	// From is the sender's display name, formatted phone number or short code; "You" when Outgoing.
	From     string `json:"from"`
	Outgoing bool   `json:"outgoing"`
	Text     string `json:"text,omitempty"`
	// Image is a media name (MediaPhoto, MediaChart, MediaGIF).
	Image string `json:"image,omitempty"`
	// Reaction, on delivery, reacts to an existing message instead of adding a row.
	Reaction *Reaction `json:"reaction,omitempty"`
	// Reactions are those received so far, in order.
	Reactions []Reaction `json:"reactions,omitempty"`
	// ReplyTo quotes an earlier message: the row embeds the parent's text part before its own.
	ReplyTo   string `json:"replyTo,omitempty"`
	Tombstone bool   `json:"tombstone,omitempty"`
	// Attachment makes a row with no text or image part (video, file).
	Attachment string `json:"attachment,omitempty"`
	// TimeOnlyLabel uses the short "Received at 2:56 PM." form some labels have.
	TimeOnlyLabel bool `json:"timeOnlyLabel,omitempty"`
	// Status is the label's status sentence without its period: "SMS", "Read", "Delivered".
	Status  string    `json:"status,omitempty"`
	Time    time.Time `json:"time"`
	Pending bool      `json:"pending,omitempty"`
	// LabelDelayMS is how long after insertion the page fills this row's aria-labels (100-300 ms).
	LabelDelayMS int `json:"labelDelayMs"`
}

// Sender is the name the aria-label grammar puts before "said:".
func (m Message) Sender() string {
	if m.Outgoing {
		return "You"
	}
	return m.From
}

// labelTail is the part of every label after the content: direction, date, status, reactions.
func (m Message) labelTail() string {
	dir := "Received"
	if m.Outgoing {
		dir = "Sent"
	}
	var b strings.Builder
	if m.TimeOnlyLabel {
		fmt.Fprintf(&b, "%s at %s.", dir, m.Time.Format("3:04 PM"))
	} else {
		fmt.Fprintf(&b, "%s on %s.", dir, m.Time.Format("January 2, 2006 at 3:04 PM"))
	}
	if m.Status != "" {
		fmt.Fprintf(&b, " %s.", m.Status)
	}
	for _, r := range groupReactions(m.Reactions) {
		fmt.Fprintf(&b, " %s.", r)
	}
	return b.String()
}

// groupReactions turns reactions into sentences, one per kind in first-seen order:
// "You and (555) 555-7334 reacted with laugh".
func groupReactions(rs []Reaction) []string {
	var kinds []string
	who := map[string][]string{}
	for _, r := range rs {
		if _, ok := who[r.Kind]; !ok {
			kinds = append(kinds, r.Kind)
		}
		who[r.Kind] = append(who[r.Kind], r.From)
	}
	out := make([]string, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, strings.Join(who[k], " and ")+" reacted with "+k)
	}
	return out
}

// TextLabel is the aria-label of the row's text part, or "" when it has none.
func (m Message) TextLabel() string {
	if m.Text == "" || m.Tombstone {
		return ""
	}
	return fmt.Sprintf("%s said: %s. %s", m.Sender(), m.Text, m.labelTail())
}

// ImageLabel is the aria-label of the row's image part, or "" when it has none.
func (m Message) ImageLabel() string {
	if m.Image == "" || m.Tombstone {
		return ""
	}
	return fmt.Sprintf("%s sent an image. %s", m.Sender(), m.labelTail())
}

// Snippet is the sidebar preview this message produces in its conversation.
func (m Message) Snippet(group bool) string {
	body := m.Text
	switch {
	case m.Tombstone:
		body = "Message deleted"
	case body == "" && m.Image != "":
		body = "Photo"
	case body == "" && m.Attachment != "":
		body = "Attachment"
	}
	switch {
	case m.Outgoing:
		return "You: " + body
	case group:
		return m.From + ": " + body
	}
	return body
}

// ids makes the seeded identifiers the real page uses: base64-like conversation and incoming
// message ids, UUIDs for sent messages, and tmp_ digits for pending ones.
type ids struct{ r *rand.Rand }

func newIDs(seed uint64) ids {
	return ids{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

const b64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

func (g ids) chars(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = b64url[g.r.IntN(len(b64url))]
	}
	return string(b)
}

// conversation returns an id shaped like "CghQyd_jHAdh-hICNTg".
func (g ids) conversation() string { return "Cg" + g.chars(17) }

// incoming returns an id shaped like "MxJQ=xCObWTheaIK-gbF0nfA".
func (g ids) incoming() string { return g.chars(4) + "=" + g.chars(19) }

// uuid returns a version-4 UUID drawn from the seeded generator.
func (g ids) uuid() string {
	var b [16]byte
	for i := range b {
		b[i] = byte(g.r.UintN(256))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// pending returns an id shaped like "tmp_615187582765".
func (g ids) pending() string { return fmt.Sprintf("tmp_%012d", g.r.Int64N(1e12)) }

// labelDelay picks the 100-300 ms after which the page fills a new row's labels.
func (g ids) labelDelay() int { return 100 + g.r.IntN(201) }
