package sim

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
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

	// Structure variants: the same content in other page shapes the bridge must read. Their
	// per-row numbers (depth, delays) are drawn from the seed and the row id (Message.Shape),
	// so a seed always renders the same page.

	// VariantNest1 puts the rows one element deeper: mws-messages-list > mws-bottom-anchored > rows.
	VariantNest1 Variant = "nest-1"
	// VariantNest2 puts the rows two elements deeper, in groups: mws-messages-list >
	// mws-bottom-anchored > div.msg-group > rows; rows loaded by scrolling back come in a new
	// group of their own at the top.
	VariantNest2 Variant = "nest-2"
	// VariantNestMixed wraps each row in 0, 1 or 2 extra elements (div.row-frame), per row.
	VariantNestMixed Variant = "nest-mixed"
	// VariantLateSrc inserts every image without its src and sets the blob URL 200-1500 ms later.
	VariantLateSrc Variant = "late-src"
	// VariantLateLabels fills the labels of rows added after a conversation opened (live and
	// scroll-back rows) 1-5 s after insertion instead of 100-300 ms.
	VariantLateLabels Variant = "late-labels"

	// Content variants add the group DemoTrivia to the demo content; they apply where the demo
	// content is loaded (Start and Reset, from Options.Variants).

	// VariantPunctuatedNames names the trivia group's people "Dr. Alice Chen", "Smith, Jane"
	// and "J. R. Okafor" (periods and a comma inside names) instead of Ann, Ben and Cy.
	VariantPunctuatedNames Variant = "punctuated-names"
	// VariantManyReactors has all three people and the user react to one trivia message with
	// the same kind ("A, B, C and You reacted with love") and two of them with another.
	VariantManyReactors Variant = "many-reactors"
	// VariantAstral adds astral-plane text to the trivia group: 3,000 emoji in one message and
	// mathematical letters, emoji and hieroglyphs in another.
	VariantAstral Variant = "astral"
)

// Behaviour variants: how a virtual-scrolling chat page may behave that the bridge was not
// written for (issue 28). Each keeps ground truth (Server.Truth, Options.Truth): which rows
// arrived while the page showed their conversation at its live end, which conversation every
// id belongs to, and each person's plain name. One-shot behaviours are Server.Behave.
const (
	// VariantRecycle renders the message list as a virtual scroller with a view cache
	// (Angular CDK's cdkVirtualFor): a fixed number of rows (Options.Window) is rendered and
	// the range slides, so scrolling back takes the newest rows out at the bottom (the view
	// leaves the live end) and a new message at the live end pushes the oldest out at the
	// top. Rows leaving the range go to a cache of 20 elements, and rows entering reuse them:
	// the same element is rewritten with another message's id and content and moved; some
	// reused elements are inserted still showing their old message and rewritten a moment
	// later, as a recycled view is before change detection runs.
	VariantRecycle Variant = "recycle"
	// VariantIndexKeyed keys rendered rows by position (a list keyed by index): each element
	// shows whatever message is at its index, so scrolling back, re-rendering or (with
	// VariantRecycle) a new message rewrites the ids and content of elements in place, and
	// elements are added or removed only at the bottom.
	VariantIndexKeyed Variant = "index-keyed"
	// VariantLinger keeps the old conversation pane after a switch (or a pane re-render) for
	// Options.LingerMS, hidden with aria-hidden and display:none, and draws the new pane
	// before it; the new pane's header names come up to 300 ms after its rows. Quick
	// switches leave several hidden panes (issue 33).
	VariantLinger Variant = "linger"
	// VariantReusePane keeps the pane, its header and its row elements on a switch and
	// rewrites them for the other conversation (a router that reuses the component); the
	// address changes before or after the rows are rewritten, chosen per switch (after: up to
	// 150 ms, and on one such switch in five 150 ms to 3 s).
	VariantReusePane Variant = "reuse-pane"
	// VariantNoise adds rows that are not messages: date separators
	// (mws-tombstone-message-wrapper), a typing indicator (Behave typing) and, while older
	// rows load, placeholder rows whose core has no message id until it is filled in.
	VariantNoise Variant = "noise"
	// VariantBidiNames draws every name (labels, reactors, header, sidebar, group sender
	// lines, snippets) with bidi isolates, direction marks or no-break spaces, chosen per
	// name and place; the names a person reads are the plain ones the simulator stores.
	VariantBidiNames Variant = "bidi-names"
	// VariantLabelsChange gives live rows a first label with only the direction and time
	// ("Received at 3:04 PM.": no sender, no text) and the full label 300-1500 ms later.
	VariantLabelsChange Variant = "labels-change"

	// Compose variants (issue 27): the default page fires an input event whenever it changes
	// the box by script; these do not.

	// VariantClearSilently empties the compose box after a send by setting its value, with
	// no input event (a framework's model binding).
	VariantClearSilently Variant = "clear-silently"
	// VariantRestoreDraft keeps each conversation's unsent draft and, when the conversation
	// is opened again, puts it back into the (empty) box by script with no event, 300-1200 ms
	// after the rows are drawn, as a page that loads stored drafts does.
	VariantRestoreDraft Variant = "restore-draft"
)

var knownVariants = map[Variant]bool{
	VariantSignedOut: true, VariantUnrecognised: true, VariantSlow: true,
	VariantContentEditable: true, VariantMirror: true,
	VariantNest1: true, VariantNest2: true, VariantNestMixed: true, VariantLateSrc: true, VariantLateLabels: true,
	VariantPunctuatedNames: true, VariantManyReactors: true, VariantAstral: true,
	VariantRecycle: true, VariantIndexKeyed: true, VariantLinger: true, VariantReusePane: true,
	VariantNoise: true, VariantBidiNames: true, VariantLabelsChange: true,
	VariantClearSilently: true, VariantRestoreDraft: true,
}

// StructureVariants are the page-shape variants, and ContentVariants those that add demo
// content; tests run the bridge on them.
var (
	StructureVariants = []Variant{VariantNest1, VariantNest2, VariantNestMixed, VariantLateSrc, VariantLateLabels}
	ContentVariants   = []Variant{VariantPunctuatedNames, VariantManyReactors, VariantAstral}
	// BehaviourVariants are the page behaviours the generator (Plan) combines.
	BehaviourVariants = []Variant{VariantRecycle, VariantIndexKeyed, VariantLinger, VariantReusePane,
		VariantNoise, VariantBidiNames, VariantLabelsChange}
	// ComposeVariants change how the page treats the compose box by script.
	ComposeVariants = []Variant{VariantClearSilently, VariantRestoreDraft}
)

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
	// Archived conversations are not drawn in the sidebar; search results (Behave search)
	// still show them.
	Archived bool `json:"archived,omitempty"`

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
	// Archived keeps the conversation out of the sidebar (search results show it).
	Archived bool `json:"archived,omitempty"`
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
	// Shape is how the structure variants render this row (filled in by Messages and Deliver).
	Shape Shape `json:"shape"`
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

// groupReactions turns reactions into sentences, one per kind in first-seen order, with the
// page's list grammar: "Mom reacted with love", "You and (555) 555-7334 reacted with laugh",
// "Ann, Ben and You reacted with wow".
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
		names := who[k]
		list := names[0]
		if n := len(names); n > 1 {
			list = strings.Join(names[:n-1], ", ") + " and " + names[n-1]
		}
		out = append(out, list+" reacted with "+k)
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

// Shape is how the structure variants render one row: Depth (0-2) extra elements around it
// with VariantNestMixed, SrcDelayMS (200-1500) before its image gets a src with VariantLateSrc,
// LateLabelMS (1000-5000) before a live row's labels are filled with VariantLateLabels. It is
// drawn from the seed and the row id alone, so the ids and delays of the default page are the
// same whether or not a variant is used.
type Shape struct {
	Depth       int `json:"depth"`
	SrcDelayMS  int `json:"srcDelayMs"`
	LateLabelMS int `json:"lateLabelMs"`
}

// shapeOf draws a row's Shape.
func shapeOf(seed uint64, id string) Shape {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	h.Write([]byte(id))
	r := rand.New(rand.NewPCG(h.Sum64(), seed))
	return Shape{Depth: r.IntN(3), SrcDelayMS: 200 + r.IntN(1301), LateLabelMS: 1000 + r.IntN(4001)}
}

// labelDelay picks the 100-300 ms after which the page fills a new row's labels.
func (g ids) labelDelay() int { return 100 + g.r.IntN(201) }
