package page

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"

	"github.com/clanker-desktop/clanker/app/engine"
)

// CommandArgs is the typed argument block of one command.
type CommandArgs interface {
	// CommandType is the protocol name of the command, e.g. "insert_text".
	CommandType() string
}

// InsertText puts text into the empty compose box of the given conversation. The bridge
// refuses with code user_typing when the user's own text is there.
type InsertText struct {
	ConversationID string `json:"conversationId" v:"req,max=200"`
	Text           string `json:"text" v:"req,max=4000"`
}

// TypeStep appends one step of a typing sequence to the text Clanker inserted so far.
type TypeStep struct {
	ConversationID string `json:"conversationId" v:"req,max=200"`
	Text           string `json:"text" v:"req,max=256"`
}

// ClearInserted takes Clanker's text out of the box and leaves exactly the user's
// characters, even when the user typed into or around it (the bridge tracks Clanker's
// characters by position). Text, when set, names that text, so the bridge can still remove
// it when it holds no record of it (the page was loaded again, or the user switched away
// and back): then it is taken from the start of the box, where Clanker's typing begins, or,
// marked "[clanker]", from wherever it is. The result's data says how: {"removed": n,
// "how": "whole|by_position|restored|nothing"} (PROTOCOL.md).
type ClearInserted struct {
	Text string `json:"text,omitempty" v:"max=4000"`
}

// FocusCompose focuses the compose box (before the shell sends its native Enter). The
// page refuses it with user_typing when the user typed into the box meanwhile.
type FocusCompose struct{}

// ComposeState asks for a fresh compose event.
type ComposeState struct{}

// ReadCompose reads the compose box now and reports it with a compose event even when
// nothing changed, so the engine can check a belief (a draft of the user's is there)
// before it holds anything for it.
type ReadCompose struct{}

// Navigate opens a conversation by clicking its sidebar link. Visit marks a navigation
// Clanker starts on its own (a visit to an inactive conversation): the page refuses it with
// user_active while the compose box holds the user's text or the user used the page within
// the last UserQuietMillis.
type Navigate struct {
	ConversationID string `json:"conversationId" v:"req,max=200"`
	Visit          bool   `json:"visit,omitempty"`
}

// FetchImage reads an image's bytes from its same-origin blob URL.
type FetchImage struct {
	Src      string `json:"src" v:"req,max=2048"`
	MaxBytes int    `json:"maxBytes" v:"min=0,max=16777216"`
}

// ShowBanner shows the warning banner at the top of the page.
type ShowBanner struct {
	Text  string `json:"text" v:"req,max=500"`
	Level string `json:"level" v:"enum=info|warning|error"`
}

// HideBanner removes the banner.
type HideBanner struct{}

// ShowToast shows a toast at the bottom right for 5 seconds.
type ShowToast struct {
	Text  string `json:"text" v:"req,max=500"`
	Level string `json:"level" v:"enum=info|error|success"`
}

// ShowOverlay shows the processing overlay (an inactive conversation is being handled).
type ShowOverlay struct {
	Text string `json:"text" v:"req,max=300"`
}

// HideOverlay removes the overlay.
type HideOverlay struct{}

// SetStatus shows the status pill with the conversation's mode. Locked, when not empty,
// is the sentence that says why the mode cannot be changed here (an automated
// conversation, unfinished settings): the pill's menu shows the modes disabled with it.
type SetStatus struct {
	ConversationID string `json:"conversationId" v:"req,max=200"`
	Mode           string `json:"mode" v:"req,enum=deactivated|available|active|uninitialized"`
	Locked         string `json:"locked" v:"max=200"`
	// Waiting: something Clanker would do waits for the user's draft (never with Locked).
	Waiting bool `json:"waiting,omitempty"`
}

// HideStatus removes the status pill.
type HideStatus struct{}

// ShowHint shows a one-time hint in a bubble that points at the status pill (how to
// switch Clanker on). Go sends it only while an unlocked pill is shown, and right after
// the pill's set_status, so the bubble has something to point at.
type ShowHint struct {
	Text string `json:"text" v:"req,max=300"`
}

// HideHint removes the hint bubble.
type HideHint struct{}

// RunSelfTest asks for a self_test event.
type RunSelfTest struct{}

// Snapshot asks the bridge to report page state, conversation, compose and sidebar afresh.
type Snapshot struct{}

// Stats asks for the bridge's own cost counters (benchmarks and diagnostics).
type Stats struct{}

// Configure tunes the bridge's timing; zero fields keep their defaults.
type Configure struct {
	UnrecognisedGraceMs int `json:"unrecognisedGraceMs" v:"min=0,max=120000"`
	// UserQuietMs replaces UserQuietMillis, how long a visit's navigate waits after the
	// user's last input.
	UserQuietMs int `json:"userQuietMs" v:"min=0,max=120000"`
	// SelfTestEveryMs replaces how often the selector self-test runs by itself (15 s).
	SelfTestEveryMs int `json:"selfTestEveryMs" v:"min=0,max=600000"`
}

func (InsertText) CommandType() string    { return "insert_text" }
func (TypeStep) CommandType() string      { return "type_step" }
func (ClearInserted) CommandType() string { return "clear_inserted" }
func (FocusCompose) CommandType() string  { return "focus_compose" }
func (ComposeState) CommandType() string  { return "compose_state" }
func (ReadCompose) CommandType() string   { return "read_compose" }
func (Navigate) CommandType() string      { return "navigate" }
func (FetchImage) CommandType() string    { return "fetch_image" }
func (ShowBanner) CommandType() string    { return "show_banner" }
func (HideBanner) CommandType() string    { return "hide_banner" }
func (ShowToast) CommandType() string     { return "show_toast" }
func (ShowOverlay) CommandType() string   { return "show_overlay" }
func (HideOverlay) CommandType() string   { return "hide_overlay" }
func (SetStatus) CommandType() string     { return "set_status" }
func (HideStatus) CommandType() string    { return "hide_status" }
func (ShowHint) CommandType() string      { return "show_hint" }
func (HideHint) CommandType() string      { return "hide_hint" }
func (RunSelfTest) CommandType() string   { return "self_test" }
func (Snapshot) CommandType() string      { return "snapshot" }
func (Stats) CommandType() string         { return "stats" }
func (Configure) CommandType() string     { return "configure" }

// commandTypes lists every command in protocol order; Schema and the doc test use it.
var commandTypes = []CommandArgs{
	InsertText{}, TypeStep{}, ClearInserted{}, FocusCompose{}, ComposeState{}, ReadCompose{}, Navigate{},
	FetchImage{}, ShowBanner{}, HideBanner{}, ShowToast{}, ShowOverlay{}, HideOverlay{},
	SetStatus{}, HideStatus{}, ShowHint{}, HideHint{}, RunSelfTest{}, Snapshot{}, Stats{}, Configure{},
}

// commandPrefix calls the bridge's command function when the bridge is there (before it
// is, or on a page it stopped on, the command does nothing).
const commandPrefix = "window.__clanker&&typeof window.__clanker.command==='function'&&window.__clanker.command("

// commandIDPattern keeps ids short and inert so they can be echoed anywhere.
var commandIDPattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)

type wireCommand struct {
	V    int         `json:"v"`
	ID   string      `json:"id"`
	Type string      `json:"type"`
	Args CommandArgs `json:"args"`
}

// EncodeCommand validates a command and returns the JavaScript to run in the page with
// WindowExecJS. The command's JSON is passed as a single string literal produced by the
// JSON encoder (which escapes quotes, backslashes, control characters, <, >, & and
// U+2028/U+2029), so no text can end the literal or the script; the bridge parses it with
// JSON.parse and never evaluates it.
//
// The script is one expression with no function in it. WebKit keeps memory for every
// distinct script it has run (each command is distinct: its id and data differ), and a
// function literal about doubles that: 1,000 commands as an immediately called function
// kept about 4.8 MiB in the web process, as this plain expression about 2.6 MiB.
// Passing the command as data to one fixed function body instead
// (webkit_web_view_call_async_javascript_function, WebKitGTK 2.50) was worse: over
// BenchmarkAppMemory's chat (425 commands) the web process kept 16.6 MiB more, against
// 7.6-9.1 MiB with this expression, so commands stay plain expressions.
func EncodeCommand(id string, args CommandArgs) (string, error) {
	if !commandIDPattern.MatchString(id) {
		return "", fmt.Errorf("encode command: id %q must be 1-64 of A-Z a-z 0-9 _ . : -", engine.Clip(id, maxQuoted))
	}
	if args == nil {
		return "", fmt.Errorf("encode command %s: no arguments", id)
	}
	if err := validate(reflect.ValueOf(args), ""); err != nil {
		return "", fmt.Errorf("encode command %s %s: %w", args.CommandType(), id, err)
	}
	body, err := json.Marshal(wireCommand{V: ProtocolVersion, ID: id, Type: args.CommandType(), Args: args})
	if err != nil {
		return "", fmt.Errorf("encode command %s %s: %w", args.CommandType(), id, err)
	}
	lit, err := json.Marshal(string(body))
	if err != nil {
		return "", fmt.Errorf("encode command %s %s: %w", args.CommandType(), id, err)
	}
	return commandPrefix + string(lit) + ");", nil
}
