package sim

import (
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

//go:embed assets
var assets embed.FS

// Options configure a simulator. The zero value is a sensible test simulator with demo content.
type Options struct {
	// Seed makes ids and label delays reproducible. Zero means 1.
	Seed uint64
	// Addr is the app's listen address; default "127.0.0.1:0".
	Addr string
	// AccountsAddr is the fake Google accounts origin's listen address; default "127.0.0.1:0".
	AccountsAddr string
	// Start is the clock's first reading; default DefaultStart (February 3, 2026 at 6:41 PM).
	Start time.Time
	// Empty starts with no conversations instead of the demo content.
	Empty bool
	// Window is how many rows the page keeps in the DOM; default 35.
	Window int
	// ConfirmAfter is how long a sent message keeps its tmp_ id before it becomes a UUID;
	// default 1 s; negative means never (use SwapPendingIDs).
	ConfirmAfter time.Duration
	// SwapMode is how automatic confirmation swaps ids; default SwapInPlace.
	SwapMode SwapMode
	// SlowDelay is how long VariantSlow keeps an opened conversation empty; default 3 s.
	SlowDelay time.Duration
	// Variants are active from the start (as if SetVariant had been called).
	Variants []Variant
	// Logger receives one line per state change and page report; default slog.Default().
	Logger *slog.Logger
	// Mount, when set, adds routes to the app origin (the tests' control API). They sit
	// behind the same loopback-only guard as the page.
	Mount func(s *Server, mux *http.ServeMux)
	// Script, when set, makes scripted friends write by themselves (see Script; the demo
	// plays DemoScript). Nil, the default, leaves the simulator changing only when told.
	Script *Script
	// LingerMS is how long VariantLinger keeps an old pane, hidden, after a switch; default 400.
	LingerMS int
	// Truth makes the page report its ground truth (Server.Truth): visits, arrivals, the
	// snippets it drew. Off by default: the demo and most tests do not need it.
	Truth bool
}

// Send is one entry of the send log: a send the page accepted (Trusted) or rejected.
type Send struct {
	Conversation string `json:"conversation"`
	Text         string `json:"text"`
	Trusted      bool   `json:"trusted"`
	// Via is "enter" (Enter keydown in the compose box) or "click" (send button).
	Via string `json:"via"`
	// MessageID is the tmp_ id the accepted message got (empty when rejected).
	MessageID string `json:"messageId,omitempty"`
	// At is the simulator clock's time; Wall is the real time the server recorded it.
	At   time.Time `json:"at"`
	Wall time.Time `json:"wall"`
}

// Swap records one tmp_ id becoming permanent.
type Swap struct {
	Conversation string   `json:"conversation"`
	From         string   `json:"from"`
	To           string   `json:"to"`
	Mode         SwapMode `json:"mode"`
}

// Status is the simulator's page-level state.
type Status struct {
	SignedIn bool      `json:"signedIn"`
	Variants []Variant `json:"variants"`
	// OpenConversation is the conversation the page last reported as open ("" on the landing page).
	OpenConversation string `json:"openConversation"`
	// SignInOrigin is the origin the page received the sign-in message from, once signed in by popup.
	SignInOrigin string `json:"signInOrigin,omitempty"`
	// Pages is how many page instances are connected to the event stream.
	Pages int `json:"pages"`
	// Pending lists the ids of sent messages still waiting for a permanent id.
	Pending []string `json:"pending"`
	// NotificationPermission is the web-notification permission the page last reported
	// ("" before it reported one): the answer to its Notification.requestPermission().
	NotificationPermission string `json:"notificationPermission"`
	// NotificationsTried counts the incoming messages the page tried to show a web
	// notification for (new Notification, whatever the permission).
	NotificationsTried int `json:"notificationsTried"`
}

// Server is a running simulator: the app origin, the accounts origin and their shared state.
type Server struct {
	opts     Options
	log      *slog.Logger
	app      *http.Server
	accounts *http.Server
	appURL   string
	accURL   string
	hub      *hub

	mu           sync.Mutex
	closed       bool
	ids          ids
	now          time.Time
	activity     int
	convs        []*Conversation
	msgs         map[string][]*Message
	sent         []Send
	rejected     []Send
	signedIn     bool
	signInOrigin string
	// notePermission and notesTried are what the page reported about web notifications.
	notePermission string
	notesTried     int
	variants       []Variant
	openConv       string
	timers         map[*time.Timer]bool
	// held, while not nil, keeps every page's state request waiting (HoldPages): the page
	// draws nothing of the app until it is closed (ReleasePages).
	held chan struct{}
	// script is the running script's state; nil without Options.Script.
	script *scriptState
	// truth is what the page reported of its ground truth (Options.Truth), oldest first,
	// and truthDropped counts the records beyond its cap.
	truth        []TruthRecord
	truthDropped int
}

// Start listens on loopback and serves the simulator until Close.
func Start(opts Options) (*Server, error) {
	// Draw the media now, beside whatever the caller does next (usually starting a browser),
	// so the first page that shows the 12-megapixel photo does not wait for it.
	go mediaBytes(MediaPhoto)
	opts.Addr, opts.AccountsAddr = cmp.Or(opts.Addr, "127.0.0.1:0"), cmp.Or(opts.AccountsAddr, "127.0.0.1:0")
	s, err := newServer(opts)
	if err != nil {
		return nil, err
	}
	appLn, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("sim: listen on %s: %w", opts.Addr, err)
	}
	accLn, err := net.Listen("tcp", opts.AccountsAddr)
	if err != nil {
		s.Close()
		appLn.Close()
		return nil, fmt.Errorf("sim: listen for the accounts origin on %s: %w", opts.AccountsAddr, err)
	}
	s.appURL = "http://" + appLn.Addr().String()
	s.accURL = "http://" + accLn.Addr().String()
	s.app = &http.Server{Handler: s.appHandler(), ReadHeaderTimeout: 10 * time.Second}
	s.accounts = &http.Server{Handler: s.accountsHandler(), ReadHeaderTimeout: 10 * time.Second}
	go s.app.Serve(appLn)
	go s.accounts.Serve(accLn)
	s.log.Info("simulator listening", "url", s.appURL, "accounts", s.accURL, "seed", opts.Seed)
	return s, nil
}

// newServer fills in the defaults and builds the state, without listening: Start adds the
// listeners, and the script's tests run a server inside a testing/synctest bubble, where a
// goroutine blocked on a real socket would keep the fake clock from moving.
func newServer(opts Options) (*Server, error) {
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if opts.Start.IsZero() {
		opts.Start = DefaultStart
	}
	if opts.Window <= 0 {
		opts.Window = 35
	}
	if opts.ConfirmAfter == 0 {
		opts.ConfirmAfter = time.Second
	}
	if opts.SwapMode == "" {
		opts.SwapMode = SwapInPlace
	}
	if opts.SwapMode != SwapInPlace && opts.SwapMode != SwapReplace {
		return nil, fmt.Errorf("sim: unknown swap mode %q (want %q or %q)", opts.SwapMode, SwapInPlace, SwapReplace)
	}
	if opts.SlowDelay <= 0 {
		opts.SlowDelay = 3 * time.Second
	}
	if opts.LingerMS <= 0 {
		opts.LingerMS = 400
	}
	for _, v := range opts.Variants {
		if !knownVariants[v] {
			return nil, fmt.Errorf("sim: unknown variant %q", v)
		}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Server{opts: opts, log: opts.Logger.With("component", "sim"), hub: newHub(), timers: map[*time.Timer]bool{}}
	// The script's timers read the state under the lock, so it is written under it too.
	s.mu.Lock()
	s.resetLocked()
	s.mu.Unlock()
	return s, nil
}

// URL is the app origin, e.g. http://127.0.0.1:PORT. The app itself is at URL()+"/web/conversations".
func (s *Server) URL() string { return s.appURL }

// AppURL is the landing page, URL()+"/web/conversations".
func (s *Server) AppURL() string { return s.appURL + "/web/conversations" }

// ConversationURL is the page of one conversation.
func (s *Server) ConversationURL(id string) string { return s.AppURL() + "/" + id }

// AccountsURL is the second loopback origin, serving the fake Google sign-in popup.
func (s *Server) AccountsURL() string { return s.accURL }

// Close stops both origins, ends the pages' event streams and cancels pending confirmations.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for t := range s.timers {
		t.Stop()
	}
	s.timers = nil
	s.releaseLocked()
	s.mu.Unlock()
	s.hub.close()
	if s.app == nil {
		return nil // never listened (newServer)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := errors.Join(s.app.Shutdown(ctx), s.accounts.Shutdown(ctx))
	if err != nil {
		s.app.Close()
		s.accounts.Close()
	}
	return nil
}

// resetLocked puts the state back to its start: clock, ids, demo content, logs, sign-in.
func (s *Server) resetLocked() {
	s.ids = newIDs(s.opts.Seed)
	s.now = s.opts.Start
	s.activity = 0
	s.convs = nil
	s.msgs = map[string][]*Message{}
	s.sent, s.rejected = nil, nil
	s.variants = slices.Clone(s.opts.Variants)
	s.signedIn = !slices.Contains(s.variants, VariantSignedOut)
	s.signInOrigin = ""
	s.openConv = ""
	s.truth, s.truthDropped = nil, 0
	for t := range s.timers {
		t.Stop()
		delete(s.timers, t)
	}
	if !s.opts.Empty {
		loadDemo(s)
	}
	s.script = nil
	if s.opts.Script != nil {
		s.startScriptLocked()
	}
}

// tick returns the clock's reading and advances it one minute: every message gets its own time.
func (s *Server) tick() time.Time {
	t := s.now
	s.now = s.now.Add(time.Minute)
	return t
}

func (s *Server) conv(id string) *Conversation {
	for _, c := range s.convs {
		if c.ID == id {
			return c
		}
	}
	return nil
}

func (s *Server) findMsg(conv, id string) *Message {
	for _, m := range s.msgs[conv] {
		if m.ID == id {
			return m
		}
	}
	return nil
}

// createLocked adds a conversation.
func (s *Server) createLocked(nc NewConversation) (*Conversation, error) {
	var parts []string
	for _, p := range nc.Participants {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return nil, errors.New("a conversation needs at least one participant")
	}
	for _, p := range parts {
		if p == "You" {
			return nil, errors.New(`"You" is the local user and cannot be a participant`)
		}
	}
	name := strings.TrimSpace(nc.Name)
	if name == "" {
		name = strings.Join(parts, ", ")
	}
	s.activity++
	c := &Conversation{ID: s.ids.conversation(), Name: name, Participants: parts, Pinned: nc.Pinned,
		Muted: nc.Muted, RCS: nc.RCS, Archived: nc.Archived, activity: s.activity}
	s.convs = append(s.convs, c)
	return c, nil
}

// addLocked validates and appends a message (or applies a reaction) and returns the stored row.
func (s *Server) addLocked(convID string, in Message, outgoing bool) (*Message, error) {
	c := s.conv(convID)
	if c == nil {
		return nil, UnknownConversationError{convID}
	}
	if in.Reaction != nil {
		r := *in.Reaction
		if r.From == "" {
			r.From = in.From
		}
		if r.Kind == "" || r.From == "" || r.Target == "" {
			return nil, errors.New("a reaction needs target, from and kind")
		}
		t := s.findMsg(convID, r.Target)
		if t == nil {
			return nil, fmt.Errorf("no message %q in conversation %s to react to", r.Target, convID)
		}
		t.Reactions = append(t.Reactions, Reaction{From: r.From, Kind: r.Kind})
		return t, nil
	}
	if !outgoing {
		if in.From == "" {
			return nil, errors.New("a delivered message needs a sender (from)")
		}
		if in.From == "You" {
			return nil, errors.New(`"You" is the local user; remote messages need another sender`)
		}
	}
	if in.Image != "" && mediaType(in.Image) == "" {
		return nil, fmt.Errorf("unknown image %q (want %s, %s or %s)", in.Image, MediaPhoto, MediaChart, MediaGIF)
	}
	if in.Attachment != "" && in.Attachment != AttachmentVideo && in.Attachment != AttachmentFile {
		return nil, fmt.Errorf("unknown attachment %q (want %q or %q)", in.Attachment, AttachmentVideo, AttachmentFile)
	}
	if in.Text == "" && in.Image == "" && in.Attachment == "" && !in.Tombstone {
		return nil, errors.New("a message needs text, an image, an attachment or a tombstone")
	}
	if len(in.Text) > 20000 {
		return nil, fmt.Errorf("message text is %d bytes; the limit is 20000", len(in.Text))
	}
	if in.ReplyTo != "" && s.findMsg(convID, in.ReplyTo) == nil {
		return nil, fmt.Errorf("no message %q in conversation %s to reply to", in.ReplyTo, convID)
	}
	m := &Message{
		Conversation: convID, From: in.From, Outgoing: outgoing, Text: in.Text, Image: in.Image,
		ReplyTo: in.ReplyTo, Tombstone: in.Tombstone, Attachment: in.Attachment,
		TimeOnlyLabel: in.TimeOnlyLabel, Status: in.Status, Time: s.tick(), LabelDelayMS: s.ids.labelDelay(),
	}
	if outgoing {
		m.From = "You"
		m.ID = s.ids.uuid()
	} else {
		m.ID = s.ids.incoming()
	}
	s.msgs[convID] = append(s.msgs[convID], m)
	s.activity++
	c.activity = s.activity
	if !outgoing && convID != s.openConv {
		c.Unread = true
	}
	return m, nil
}

// sidebarLocked returns the conversations the sidebar draws (not the archived ones) in
// sidebar order, with their snippets filled in and names as stored.
func (s *Server) sidebarLocked() []Conversation {
	return s.listLocked(false)
}

// listLocked returns the conversations in sidebar order, the archived ones too when asked
// (after the others).
func (s *Server) listLocked(archived bool) []Conversation {
	out := make([]Conversation, 0, len(s.convs))
	for _, c := range s.convs {
		if c.Archived && !archived {
			continue
		}
		cc := *c
		cc.Participants = slices.Clone(c.Participants)
		ms := s.msgs[c.ID]
		if len(ms) > 0 {
			last := ms[len(ms)-1]
			cc.Snippet = last.Snippet(len(c.Participants) > 1)
			cc.Time = last.Time.Format("3:04 PM")
		}
		out = append(out, cc)
	}
	slices.SortStableFunc(out, func(a, b Conversation) int {
		if a.Archived != b.Archived {
			if b.Archived {
				return -1
			}
			return 1
		}
		if a.Pinned != b.Pinned {
			if a.Pinned {
				return -1
			}
			return 1
		}
		return b.activity - a.activity
	})
	return out
}

// rowView is a message as the page renders it: labels computed here, in Go, where they are tested.
type rowView struct {
	ID           string `json:"id"`
	Outgoing     bool   `json:"outgoing"`
	From         string `json:"from"`
	Text         string `json:"text,omitempty"`
	TextLabel    string `json:"textLabel,omitempty"`
	Image        string `json:"image,omitempty"`
	ImageLabel   string `json:"imageLabel,omitempty"`
	QuoteFrom    string `json:"quoteFrom,omitempty"`
	QuoteText    string `json:"quoteText,omitempty"`
	QuoteLabel   string `json:"quoteLabel,omitempty"`
	Tombstone    bool   `json:"tombstone,omitempty"`
	Attachment   string `json:"attachment,omitempty"`
	Time         string `json:"time"`
	LabelDelayMS int    `json:"labelDelayMs"`
	Shape
	Reactions     string `json:"reactions,omitempty"`
	PendingStatus bool   `json:"pending,omitempty"`
	// FirstTextLabel and FirstImageLabel are what VariantLabelsChange puts on a live row
	// before its full labels: only the direction and time ("Received at 3:04 PM.").
	FirstTextLabel  string `json:"firstTextLabel,omitempty"`
	FirstImageLabel string `json:"firstImageLabel,omitempty"`
}

func (s *Server) viewLocked(m *Message) rowView {
	// Names are drawn decorated with VariantBidiNames; the stored message keeps them plain.
	dm, from := s.drawnLocked(m, "label"), s.drawName("sender", m.Sender())
	v := rowView{ID: m.ID, Outgoing: m.Outgoing, From: from, Text: m.Text, TextLabel: dm.TextLabel(),
		Image: m.Image, ImageLabel: dm.ImageLabel(), Tombstone: m.Tombstone, Attachment: m.Attachment,
		Time: m.Time.Format("3:04 PM"), LabelDelayMS: m.LabelDelayMS, Shape: shapeOf(s.opts.Seed, m.ID), PendingStatus: m.Pending}
	if m.Tombstone {
		v.Text, v.Image = "", ""
	}
	if len(m.Reactions) > 0 {
		v.Reactions = strings.Join(groupReactions(m.Reactions), " · ")
	}
	if s.hasVariant(VariantLabelsChange) && !m.Tombstone {
		// First only the time, as "Received at 3:04 PM.": no sender, no text.
		bare := dm
		bare.TimeOnlyLabel, bare.Status, bare.Reactions = true, "", nil
		if m.Text != "" {
			v.FirstTextLabel = bare.labelTail()
		}
		if m.Image != "" {
			v.FirstImageLabel = bare.labelTail()
		}
	}
	if m.ReplyTo != "" {
		if p := s.findMsg(m.Conversation, m.ReplyTo); p != nil {
			dp := s.drawnLocked(p, "label")
			v.QuoteFrom, v.QuoteText, v.QuoteLabel = s.drawName("sender", p.Sender()), p.Text, dp.TextLabel()
		}
	}
	return v
}

func (s *Server) rowsLocked(conv string) []rowView {
	ms := s.msgs[conv]
	out := make([]rowView, 0, len(ms))
	for _, m := range ms {
		out = append(out, s.viewLocked(m))
	}
	return out
}

// event is what the page receives on its event stream.
type event struct {
	Type         string         `json:"type"`
	Conversation string         `json:"conversation,omitempty"`
	Row          *rowView       `json:"row,omitempty"`
	Sidebar      []Conversation `json:"sidebar,omitempty"`
	From         string         `json:"from,omitempty"`
	To           string         `json:"to,omitempty"`
	Mode         SwapMode       `json:"mode,omitempty"`
	Text         string         `json:"text,omitempty"`
	Count        int            `json:"count,omitempty"`
	Behaviour    *Behaviour     `json:"behaviour,omitempty"`
}

func (s *Server) publishLocked(e event) {
	if s.closed {
		return
	}
	b, err := json.Marshal(e)
	if err != nil {
		s.log.Error("encode page event", "type", e.Type, "err", err)
		return
	}
	s.hub.publish(b)
}

// confirmLaterLocked schedules the automatic tmp_ → UUID swap for a sent message.
func (s *Server) confirmLaterLocked(conv, id string) {
	if s.opts.ConfirmAfter < 0 || s.timers == nil {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(s.opts.ConfirmAfter, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed || !s.timers[t] {
			return
		}
		delete(s.timers, t)
		if m := s.findMsg(conv, id); m != nil && m.Pending {
			s.swapLocked(m, s.opts.SwapMode)
		}
	})
	s.timers[t] = true
}

// swapLocked gives a pending message its permanent UUID and tells the page how to show it.
func (s *Server) swapLocked(m *Message, mode SwapMode) Swap {
	old := m.ID
	m.ID = s.ids.uuid()
	m.Pending = false
	sw := Swap{Conversation: m.Conversation, From: old, To: m.ID, Mode: mode}
	v := s.viewLocked(m)
	s.publishLocked(event{Type: "swap", Conversation: m.Conversation, From: old, To: m.ID, Mode: mode, Row: &v})
	s.log.Debug("pending id swapped", "conversation", m.Conversation, "from", old, "to", m.ID, "mode", mode)
	return sw
}

func (s *Server) hasVariant(v Variant) bool { return slices.Contains(s.variants, v) }

// appHandler routes the app origin: the page, its assets, the page's own API and whatever
// Options.Mount adds.
func (s *Server) appHandler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/web/conversations", http.StatusFound)
	})
	mux.HandleFunc("GET /web/", s.servePage)
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(static)))
	mux.HandleFunc("GET /__sim/media/{name}", s.serveMedia)
	s.pageRoutes(mux)
	if s.opts.Mount != nil {
		s.opts.Mount(s, mux)
	}
	return loopbackOnly(mux)
}

func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	b, err := assets.ReadFile("assets/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}

func (s *Server) serveMedia(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	ct := mediaType(name)
	if ct == "" {
		http.Error(w, "no such media: "+name, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "max-age=3600")
	w.Write(mediaBytes(name))
}

// loopbackOnly refuses requests that do not come from this machine, whatever address was bound.
func loopbackOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		ip := net.ParseIP(host)
		if err != nil || ip == nil || !ip.IsLoopback() {
			http.Error(w, "the simulator only answers loopback clients", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		slog.Debug("write json response", "err", err)
	}
}

// readJSON decodes a small JSON body strictly: unknown fields and trailing data are errors.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		http.Error(w, "bad JSON body: "+err.Error(), http.StatusBadRequest)
		return false
	}
	if dec.More() {
		http.Error(w, "bad JSON body: trailing data after the object", http.StatusBadRequest)
		return false
	}
	return true
}
