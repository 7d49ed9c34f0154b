package engine

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"
)

// CommandKind names one thing the engine asks the page (or the shell, for native input) to do.
type CommandKind string

// Page commands. Text commands carry the conversation they are meant for; the bridge must refuse
// (with an error result) a text command whose conversation is not the one on screen, which is
// what keeps a reply from landing in the wrong conversation during a switch.
const (
	CmdInsertText   CommandKind = "insert_text"   // replace an empty box with Text; refuse "user_typing" if it holds a draft
	CmdTypeText     CommandKind = "type_text"     // append Text (one typing step) to what Clanker inserted
	CmdRemoveText   CommandKind = "remove_text"   // remove what Clanker inserted (Text), leaving user text alone
	CmdPressEnter   CommandKind = "press_enter"   // trusted native Enter, delivered by the shell
	CmdNavigate     CommandKind = "navigate"      // open Conversation
	CmdFetchImage   CommandKind = "fetch_image"   // fetch Src; the result carries the bytes
	CmdBanner       CommandKind = "banner"        // show a persistent warning keyed by Key (Text empty: remove it)
	CmdToast        CommandKind = "toast"         // short notification; Level is info, error or success
	CmdOverlay      CommandKind = "overlay"       // show (Text non-empty) or hide the processing overlay
	CmdStatus       CommandKind = "status"        // update the mode pill; Text is the mode, Waiting says Clanker waits for the user's draft
	CmdSetAutomated CommandKind = "set_automated" // tell menus the foreground is an automated conversation
	CmdReadCompose  CommandKind = "read_compose"  // read the compose box now and report it (a ComposeState follows)
	CmdResync       CommandKind = "resync"        // report the conversation on screen again (its view could not be believed)
)

// Banner keys. Each banner is removed only by its own key, so one condition clearing can never
// hide another condition's warning that is still true.
const (
	BannerConfig       = "config"
	BannerDeactivated  = "deactivated"
	BannerModeRejected = "mode"
	// BannerSettings says the stored settings cannot be used for a request (for example an
	// endpoint that would send the key over plain http to another machine).
	BannerSettings = "settings"
	// BannerPaused says Clanker stopped acting because the page changed in a way it cannot
	// read safely (see PageDrift).
	BannerPaused = "paused"
)

// Command is one instruction for the page. ID is unique per engine and echoed by CommandResult.
type Command struct {
	ID           uint64
	Kind         CommandKind
	Conversation ConversationID
	Text         string
	Src          string
	Key          string
	Level        string
	// Visit marks a CmdNavigate that starts a visit on Clanker's own initiative; the page
	// refuses it with ResultUserActive while the user is using the window.
	Visit bool
	// Waiting marks a CmdStatus sent while something Clanker would do waits for the user's
	// draft in the conversation on screen (see Engine.waitsForDraft).
	Waiting bool
}

// Result codes a page may return besides success.
const (
	ResultUserTyping        = "user_typing"        // the box held a draft; nothing was changed
	ResultWrongConversation = "wrong_conversation" // the page shows another conversation; nothing was changed
	ResultComposeChanged    = "compose_changed"    // the box no longer holds what Clanker typed; nothing was typed
	ResultUserActive        = "user_active"        // a visit's navigate met the user using the window; nothing was changed
)

// Page carries commands to the page. Do must not block: it hands the command on and returns;
// the outcome arrives later as a CommandResult event with the same ID.
type Page interface {
	Do(cmd Command)
}

// Store persists per-conversation engine state. Methods are called from the engine goroutine and
// must return promptly. A missing conversation is not an error: Load returns ok=false.
type Store interface {
	LoadConversation(id ConversationID) (rec Conversation, ok bool, err error)
	// SaveConversation writes the parts the engine owns (mode, last processed message,
	// timestamps) and leaves Memory and ModelOverride as they are stored.
	SaveConversation(rec Conversation) error
	// ApplyContext applies the model's context updates to the conversation they were computed
	// for, never to whatever conversation is on screen when they arrive.
	ApplyContext(id ConversationID, upd ContextUpdate) error
	// DeactivateAll sets every stored conversation to Deactivated and reports how many changed.
	DeactivateAll() (int, error)
	// MarkSeen records that the conversations were visible in the sidebar or foreground at t.
	MarkSeen(ids []ConversationID, t time.Time) error
	// ForgetUnseen deletes all data of conversations last seen before t and reports how many.
	ForgetUnseen(before time.Time) (int, error)
	// SaveLeftover records Clanker's partial text left in id's compose box ("" when there is
	// none any more), so an engine started later (after a restart, a crash) can still take it
	// out when the conversation is shown; LoadConversation returns it as Conversation.Leftover.
	SaveLeftover(id ConversationID, text string) error
	// RecordMessages remembers that the message ids were seen in conversation id, across
	// restarts; only the newest few thousand per conversation need to be kept, and pending
	// (tmp_) ids may be ignored. An id keeps the conversation it was first recorded in.
	RecordMessages(id ConversationID, ids []string) error
	// MessageOwners reports, for each of ids recorded before, the conversation it was first
	// seen in; ids never recorded are absent.
	MessageOwners(ids []string) (map[string]ConversationID, error)
}

// RequestKind says why the model is asked.
type RequestKind string

// Request kinds.
const (
	RequestReply      RequestKind = "reply"
	RequestActivation RequestKind = "activation"
	RequestNews       RequestKind = "news"
)

// ImageData is an image the model asked to see, as fetched by the page (not yet optimised; the
// LLM side owns optimisation). When the page could not deliver it, Data is empty and
// Unavailable says why, so the model can still answer, knowing it cannot see the picture.
type ImageData struct {
	Src         string
	Data        []byte
	Unavailable string
}

// LLMRequest is everything the LLM client needs from the engine. Stored summary,
// customization and profiles are loaded by the LLM side from the store by Conversation.
type LLMRequest struct {
	Kind         RequestKind
	Conversation ConversationID
	Generation   uint64
	UserName     string
	// Model is the model to ask: the conversation's own when the user chose one, else the
	// global one (Settings.ModelFor).
	Model        string
	Participants []string // "You" already replaced by the user's name
	// History holds every message the engine holds for the conversation, oldest first; the LLM
	// side shows the model the ones HistoryWindow picks for HistorySize. Only sender labels
	// that name the local user are rewritten to the user's name; message text is left exactly
	// as the person wrote it.
	History         []Message
	HistorySize     int
	WebSearch       bool
	NewsMaxSearches int
	Image           *ImageData
}

// ContextUpdate is the model's change to the stored context. A nil pointer / false Set flag
// means "leave unchanged".
type ContextUpdate struct {
	Summary          *string
	CustomizationSet bool
	Customization    *string // nil with CustomizationSet clears it
	ProfilesSet      bool
	Profiles         map[string]string // nil or empty with ProfilesSet clears them
}

// Empty reports whether the update changes nothing.
func (u ContextUpdate) Empty() bool {
	return (u.Summary == nil || *u.Summary == "") && !u.CustomizationSet && !u.ProfilesSet
}

// Reply is a parsed, validated model answer. Text is the message without the prefix; empty
// means the model chose to stay silent. RequestImage asks to see an image first.
type Reply struct {
	Text         string
	RequestImage string
	Update       ContextUpdate
}

// LLM answers one request. Complete is called on a goroutine of its own and may take as long as
// it needs; ctx is cancelled when the engine stops. Errors should be *LLMError so the engine can
// tell an invalid key (deactivate) from a passing server error (toast once).
type LLM interface {
	Complete(ctx context.Context, req LLMRequest) (Reply, error)
}

// ErrorClass is the category of an LLM failure, deciding how the engine reacts.
type ErrorClass string

// Error classes.
const (
	ErrAuth      ErrorClass = "auth"       // deactivate, banner
	ErrQuota     ErrorClass = "quota"      // deactivate, banner
	ErrBudget    ErrorClass = "budget"     // the user's monthly budget is spent: deactivate everywhere, banner
	ErrRateLimit ErrorClass = "rate_limit" // log only
	ErrServer    ErrorClass = "server"     // toast on the first failure in a row
	ErrNetwork   ErrorClass = "network"    // toast on the first failure in a row
	ErrModel     ErrorClass = "model"      // toast every time
	ErrUnknown   ErrorClass = "unknown"    // toast every time
	// ErrSettings means the request was refused before anything was sent because the stored
	// settings cannot be used (an endpoint that fails the checks, say). The conversation keeps
	// its mode; a banner asks the user to fix the settings, and saving them removes it.
	ErrSettings ErrorClass = "settings"
)

// LLMError is a classified LLM failure, and the only classification there is: the LLM adapter
// turns HTTP statuses, provider error bodies and transport failures straight into it. UserText
// is a sentence that tells the user what to do. It never contains the API key.
type LLMError struct {
	Class    ErrorClass
	Status   int // HTTP status; 0 when no response arrived
	UserText string
	// Code is the provider's own error code ("invalid_api_key", "429", ...), for logs and
	// diagnostics; empty when the provider sent none.
	Code string
	// RetryAfter is how long the service asked the client to wait (Retry-After); zero when it
	// did not say. The adapter's rate-limit retry honours it.
	RetryAfter time.Duration
	Err        error
}

func (e *LLMError) Error() string {
	code := ""
	if e.Code != "" {
		code = " code=" + e.Code
	}
	if e.Err != nil {
		return fmt.Sprintf("llm %s (HTTP %d)%s: %v", e.Class, e.Status, code, e.Err)
	}
	return fmt.Sprintf("llm %s (HTTP %d)%s: %s", e.Class, e.Status, code, e.UserText)
}

func (e *LLMError) Unwrap() error { return e.Err }

// The ports below are not used by the engine itself: they are the domain's side of the
// contracts between the adapters, so that no adapter imports another. app/run wires each one.

// MemoryStore gives the LLM adapter a conversation's stored memory to build the prompt from.
// A conversation never stored has empty memory, which is not an error. The SQLite store
// implements it.
type MemoryStore interface {
	LoadMemory(ctx context.Context, id ConversationID) (Memory, error)
}

// Usage is the token count of one engine request: every HTTP call it made, including
// rate-limit and length retries. An image follow-up is a request of its own.
type Usage struct {
	Conversation ConversationID
	Model        string
	Tokens       Tokens
	// At is when the request finished; zero means now.
	At time.Time
}

// UsageRecorder stores usage records for the budget and the usage views. The SQLite store
// implements it.
type UsageRecorder interface {
	RecordUsage(ctx context.Context, u Usage) error
}

// BudgetGate reports whether the user's monthly budget is spent; userText says so in a
// sentence for the banner. The SQLite store implements it from the saved budget and the
// recorded usage.
type BudgetGate interface {
	BudgetExceeded(ctx context.Context) (exceeded bool, userText string, err error)
}

// PreparedImage is an image made ready for a vision model: a small JPEG without metadata.
type PreparedImage struct {
	JPEG          []byte
	Width, Height int
}

// DataURL returns the image as a data: URL for a vision request.
func (p PreparedImage) DataURL() string {
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(p.JPEG)
}

// ImagePreparer turns the bytes of an image the page fetched into what the model is shown.
// Images are kept per conversation, so one conversation's picture is never served into
// another. A failure the model should be told about is an *ImageUnavailable. app/images
// implements it; the LLM adapter is given one.
type ImagePreparer interface {
	PrepareImage(ctx context.Context, id ConversationID, src string, data []byte) (PreparedImage, error)
}

// ImageUnavailable says why an image cannot be shown to the model. Reason is the short phrase
// the model is told ("its file format is not supported").
type ImageUnavailable struct {
	Reason string
	Err    error
}

func (e *ImageUnavailable) Error() string {
	if e.Err == nil {
		return "image unavailable: " + e.Reason
	}
	return "image unavailable: " + e.Reason + ": " + e.Err.Error()
}

func (e *ImageUnavailable) Unwrap() error { return e.Err }

// ImageCache is the persistent per-conversation cache of prepared images, so a picture the
// model already saw is not decoded again after a restart. The SQLite store implements it;
// the image preparer uses it.
type ImageCache interface {
	LoadImage(ctx context.Context, id ConversationID, src string) (img PreparedImage, ok bool, err error)
	SaveImage(ctx context.Context, id ConversationID, src string, img PreparedImage) error
}

// ConnectionProbe is what the settings window asks of the model client when the user clicks
// Test connection, with the values typed in the form (not yet saved). app/llm implements it
// and app/run hands it to the window, so the window needs no model client of its own.
type ConnectionProbe interface {
	// WebSearchNote is the provider's remark on web search for endpoint ("" when none).
	WebSearchNote(endpoint string) string
	// ListModels returns the model names the server lists; nil when it lists none or
	// cannot be asked.
	ListModels(ctx context.Context, endpoint, apiKey string) []string
	// Ping sends one small request for model. A failure the client recognises is an
	// *LLMError whose UserText says what to fix; any other error means the server answered
	// in a format Clanker does not read.
	Ping(ctx context.Context, endpoint, apiKey, model string) error
}
