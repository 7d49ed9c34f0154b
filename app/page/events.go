package page

import "encoding/json"

// Event is one decoded, validated event from the page.
type Event interface {
	// EventType is the protocol name of the event, e.g. "message".
	EventType() string
}

// Envelope is the outer shape of every event: protocol version, type, a sequence number
// that restarts at 1 whenever the bridge is (re)injected, and the typed payload.
type Envelope struct {
	V     int             `json:"v"`
	Type  string          `json:"type"`
	Seq   int64           `json:"seq"`
	Data  json.RawMessage `json:"data"`
	Event Event           `json:"-"`
}

// Hello is the first event after injection. A second Hello means the page reloaded (or
// the bridge was injected into a fresh document), so Go resynchronises.
type Hello struct {
	Bridge           string `json:"bridge" v:"req,max=64"`
	Transport        string `json:"transport" v:"req,enum=webkit|webview2|test"`
	URL              string `json:"url" v:"max=2048"`
	ReadyState       string `json:"readyState" v:"enum=loading|interactive|complete"`
	SelectorsChecked string `json:"selectorsChecked" v:"max=32"`
}

// PageState says what kind of page is showing. "unrecognised" is only reported after a
// grace period in which none of the known structure appeared, and is not final: the bridge
// keeps checking and reports the real state once the page shows it.
type PageState struct {
	State          string `json:"state" v:"req,enum=loading|signed_out|no_conversation|conversation|unrecognised"`
	URL            string `json:"url" v:"max=2048"`
	ConversationID string `json:"conversationId" v:"max=200"`
}

// Conversation is the foreground conversation, reported once the DOM has settled for it
// (no rows of the previous conversation left, labels filled, no changes for a moment).
// Its messages are the visible baseline: none of them is new.
type Conversation struct {
	ConversationID string    `json:"conversationId" v:"req,max=200"`
	URL            string    `json:"url" v:"max=2048"`
	HeaderNames    []string  `json:"headerNames" v:"items=50,max=200"`
	Participants   []string  `json:"participants" v:"items=200,max=200"`
	Automated      []string  `json:"automated" v:"items=50,max=200"`
	Messages       []Message `json:"messages" v:"items=2000"`
	Omitted        int       `json:"omitted" v:"min=0,max=100000"`
}

// NewMessage is one message that arrived after the conversation settled (appended below
// every known row). Each message id is reported this way at most once per conversation.
type NewMessage struct {
	ConversationID string  `json:"conversationId" v:"req,max=200"`
	Message        Message `json:"message"`
}

// History carries older rows inserted above the known ones (scroll-back). They are
// context, never triggers.
type History struct {
	ConversationID string    `json:"conversationId" v:"req,max=200"`
	Messages       []Message `json:"messages" v:"items=2000"`
}

// MessageID says a known message changed its id (tmp_ to permanent), either in place or
// by the page replacing the row. It is not a new message.
type MessageID struct {
	ConversationID string `json:"conversationId" v:"req,max=200"`
	OldID          string `json:"oldId" v:"req,max=200"`
	NewID          string `json:"newId" v:"req,max=200"`
}

// MessageUpdate says the label of a known row changed after it was reported (a reaction
// arrived, the status became Read); it carries the re-parsed message. It is never a new
// message and never a trigger.
type MessageUpdate struct {
	ConversationID string  `json:"conversationId" v:"req,max=200"`
	Message        Message `json:"message"`
}

// Message is one parsed message row. Fields the label did not yield stay empty and
// LabelKind says how much of the label was understood; a row is never dropped for an
// unusual label.
type Message struct {
	ID            string     `json:"id" v:"req,max=200"`
	Sender        string     `json:"sender" v:"max=200"`
	Direction     string     `json:"direction" v:"req,enum=in|out|unknown"`
	Text          string     `json:"text" v:"max=4000"`
	TextTruncated bool       `json:"textTruncated"`
	Images        []Image    `json:"images" v:"items=10"`
	Reactions     []Reaction `json:"reactions" v:"items=20"`
	Status        []string   `json:"status" v:"items=10,max=100"`
	Quote         *Quote     `json:"quote"`
	Timestamp     string     `json:"timestamp" v:"max=200"`
	// At is the label's date and time read by the bridge, in milliseconds since the epoch
	// (the page's own time zone, to the minute), or 0 when the label gave no date.
	At           int64  `json:"at" v:"min=0"`
	LabelKind    string `json:"labelKind" v:"req,enum=full|time_only|partial|none"`
	OwnClanker   bool   `json:"ownClanker"`
	OtherClanker bool   `json:"otherClanker"`
	Unsupported  bool   `json:"unsupported"`
}

// Image is one image of a message: its blob URL (fetch it with fetch_image) and alt text.
type Image struct {
	Src string `json:"src" v:"max=2048"`
	Alt string `json:"alt" v:"max=1000"`
}

// Reaction is one reaction sentence from a label, e.g. "You and Bob reacted with laugh".
type Reaction struct {
	Reaction string   `json:"reaction" v:"req,max=100"`
	By       []string `json:"by" v:"items=50,max=200"`
}

// Quote is the parent message a reply quotes; it is context only, the reply's own text
// is in Message.Text.
type Quote struct {
	Sender string `json:"sender" v:"max=200"`
	Text   string `json:"text" v:"max=4000"`
}

// Compose is the state of the compose box. HasUserText is true when the box holds text
// Clanker did not insert (send-button labels like "SMS" do not count).
type Compose struct {
	ConversationID string `json:"conversationId" v:"max=200"`
	Present        bool   `json:"present"`
	Kind           string `json:"kind" v:"req,enum=textarea|contenteditable|none"`
	HasUserText    bool   `json:"hasUserText"`
	HasClankerText bool   `json:"hasClankerText"`
	Focused        bool   `json:"focused"`
}

// Sidebar is a diff of the conversation list, debounced about 500 ms. Full is true for
// the first report, which lists every item in the page's order; a diff lists the changed
// and added items in the page's order.
type Sidebar struct {
	Full    bool          `json:"full"`
	Items   []SidebarItem `json:"items" v:"items=1000"`
	Removed []string      `json:"removed" v:"items=1000,max=200"`
}

// SidebarItem is one conversation in the list. Outgoing means the snippet starts "You:".
// AboveKnown (diff items only) marks a row the previous report did not list that the page
// drew above a row it did: where the page puts a conversation that just began. Rows that
// scrolling or loading more brings into view come below every known row.
type SidebarItem struct {
	ID         string `json:"id" v:"req,max=200"`
	Name       string `json:"name" v:"max=200"`
	Snippet    string `json:"snippet" v:"max=4000"`
	Outgoing   bool   `json:"outgoing"`
	Unread     bool   `json:"unread"`
	Selected   bool   `json:"selected"`
	Pinned     bool   `json:"pinned"`
	Muted      bool   `json:"muted"`
	Automated  bool   `json:"automated"`
	AboveKnown bool   `json:"aboveKnown"`
}

// SelfTest reports, per key selector, whether it matched the expected number of
// elements on the current page; a failing key points at a Google redesign.
type SelfTest struct {
	Checked string           `json:"checked" v:"req,max=32"`
	State   string           `json:"state" v:"req,enum=loading|signed_out|no_conversation|conversation|unrecognised"`
	Results []SelectorResult `json:"results" v:"items=100"`
}

// SelectorResult is one selector's self-test line.
type SelectorResult struct {
	Key      string `json:"key" v:"req,max=64"`
	Selector string `json:"selector" v:"req,max=300"`
	Count    int    `json:"count" v:"min=0,max=1000000"`
	Expect   string `json:"expect" v:"req,enum=one|some|optional"`
	OK       bool   `json:"ok"`
	// Critical marks a selector that decides who said what or which rows are new (the
	// message rows and their ids, the sender labels, the pane): while one fails, what the
	// bridge reports may be wrong.
	Critical bool `json:"critical"`
}

// Result answers one command. Data is command-specific JSON (see PROTOCOL.md), capped.
type Result struct {
	ID      string          `json:"id" v:"max=64"`
	Command string          `json:"command" v:"max=32"`
	OK      bool            `json:"ok"`
	Code    string          `json:"code" v:"max=64"`
	Error   string          `json:"error" v:"max=500"`
	Data    json.RawMessage `json:"data" v:"max=65536"`
}

// ImageChunk is one piece of a fetch_image answer, sent before its Result.
type ImageChunk struct {
	ID    string `json:"id" v:"req,max=64"`
	Index int    `json:"index" v:"min=0,max=1000"`
	Total int    `json:"total" v:"min=1,max=1000"`
	Data  string `json:"data" v:"max=131072"`
}

// ModeMenu is the user's choice in the in-page status pill menu. Go decides what to do.
type ModeMenu struct {
	ConversationID string `json:"conversationId" v:"max=200"`
	Choice         string `json:"choice" v:"req,enum=deactivated|available|active|settings"`
}

// BannerDismissed says the user closed the warning banner with its dismiss button.
type BannerDismissed struct {
	Text string `json:"text" v:"max=500"`
}

// HintDismissed says the user closed the hint bubble (a trusted click); it is already gone.
type HintDismissed struct{}

// OverlayCancel says the user ended Clanker's visit to another conversation: the overlay's
// Cancel button, or a key pressed in the compose box while the overlay showed (both trusted).
// For a key, ConversationID is the conversation the page's address named when it was pressed:
// the user may have opened another conversation a moment before, and the page_state of that
// switch may come after this event.
type OverlayCancel struct {
	Reason         string `json:"reason" v:"req,enum=cancel|key"`
	ConversationID string `json:"conversationId" v:"max=200"`
}

func (Hello) EventType() string           { return "hello" }
func (PageState) EventType() string       { return "page_state" }
func (Conversation) EventType() string    { return "conversation" }
func (NewMessage) EventType() string      { return "message" }
func (History) EventType() string         { return "history" }
func (MessageID) EventType() string       { return "message_id" }
func (MessageUpdate) EventType() string   { return "message_update" }
func (Compose) EventType() string         { return "compose" }
func (Sidebar) EventType() string         { return "sidebar" }
func (SelfTest) EventType() string        { return "self_test" }
func (Result) EventType() string          { return "result" }
func (ImageChunk) EventType() string      { return "image_chunk" }
func (ModeMenu) EventType() string        { return "mode_menu" }
func (BannerDismissed) EventType() string { return "banner_dismissed" }
func (OverlayCancel) EventType() string   { return "overlay_cancel" }
func (HintDismissed) EventType() string   { return "hint_dismissed" }

// eventTypes lists every event the page may send; anything else is rejected.
var eventTypes = map[string]func() Event{
	"hello":            func() Event { return &Hello{} },
	"page_state":       func() Event { return &PageState{} },
	"conversation":     func() Event { return &Conversation{} },
	"message":          func() Event { return &NewMessage{} },
	"history":          func() Event { return &History{} },
	"message_id":       func() Event { return &MessageID{} },
	"message_update":   func() Event { return &MessageUpdate{} },
	"compose":          func() Event { return &Compose{} },
	"sidebar":          func() Event { return &Sidebar{} },
	"self_test":        func() Event { return &SelfTest{} },
	"result":           func() Event { return &Result{} },
	"image_chunk":      func() Event { return &ImageChunk{} },
	"mode_menu":        func() Event { return &ModeMenu{} },
	"banner_dismissed": func() Event { return &BannerDismissed{} },
	"overlay_cancel":   func() Event { return &OverlayCancel{} },
	"hint_dismissed":   func() Event { return &HintDismissed{} },
}
