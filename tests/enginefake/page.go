package enginefake

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Conv is one conversation of the fake page's world.
type Conv struct {
	Name string
	// Header are the names the conversation's header shows when they are not its name (a
	// named group's members).
	Header []string
	Msgs   []engine.Message
	// Draft says the user's own text is in the box.
	Draft bool
}

// Sent is one text the page sent (Enter pressed with the box's text).
type Sent struct {
	Conversation engine.ConversationID
	Text         string
	At           time.Time
}

// Page plays the Google Messages page, the bridge and the shell as the engine sees them through
// engine.Page. It keeps a small world of conversations, each with its own compose box, shows
// one of them at a time, refuses a text command for a conversation that is not on screen and an
// insert over the user's draft, sends the box on Enter and echoes the sent text back as the
// user's own message, follows navigation and serves fetch_image from Images.
//
// Every command gets its result (and whatever events follow it) through the sink given to
// Attach, at once and on the caller's goroutine; before Attach it is only recorded.
//
// The exported fields are the world and the page's behaviour switches. A test changes them
// while the engine runs only with the page locked (Lock, Unlock); the methods documented as
// "call with the page locked" expect the same, the others lock by themselves.
type Page struct {
	sync.Mutex

	// Current is the conversation on screen.
	Current engine.ConversationID
	Convs   map[engine.ConversationID]*Conv
	// Box is each conversation's compose box: Clanker's text and the user's.
	Box map[engine.ConversationID]string
	// Clanker is the part of each box Clanker inserted, as the bridge tracks it: remove_text
	// takes out exactly that, and a typing step is refused once the box holds anything else.
	Clanker map[engine.ConversationID]string
	// Images are the bytes fetch_image serves, by source; an unknown source is "not found".
	Images map[string][]byte

	// NoNav makes navigate commands succeed without going anywhere (the click did nothing).
	NoNav bool
	// UserActive makes the page refuse a visit's navigate (Visit set) with ResultUserActive,
	// as the bridge does while the user is using the window.
	UserActive bool
	// HoldFetch leaves fetch_image commands unanswered (a fetch that hangs).
	HoldFetch bool
	// SingleRecord makes the page keep, as the bridge does, one record of Clanker's text, for
	// the box on screen: a switch forgets it, and a box that holds text no record covers reads
	// as the user's draft until it is emptied.
	SingleRecord bool
	// HoldText carries out insert_text, type_text and press_enter at once but keeps their
	// results until ReleaseHeld (a result still on its way back when the engine changes its
	// mind).
	HoldText bool
	// TypeAfterInsert makes the user type into the box right after Clanker's next insert (a
	// draft the engine has not been told about yet).
	TypeAfterInsert bool
	// Lingering are rows of another conversation's pane that the next LingerViews views of any
	// conversation show too (an old pane not yet removed after a quick switch), with
	// LingerHeader as their header when set.
	Lingering    []engine.Message
	LingerHeader string
	LingerViews  int
	// RemoveHow is what the page reports of how it took Clanker's text out (remove_text's
	// data), when set.
	RemoveHow string
	// BeforeSend, when set, is called with every text just before Enter sends it; an error
	// keeps it unsent and is the command's error (the crash harness journals here).
	BeforeSend func(conv engine.ConversationID, text string) error

	sink     func(engine.Event) error
	held     []engine.Event
	cmds     []engine.Command
	sent     []Sent
	seq      int
	sendErrs []error
}

// NewPage returns a page with no conversation on screen and an empty world.
func NewPage() *Page {
	return &Page{Convs: map[engine.ConversationID]*Conv{}, Box: map[engine.ConversationID]string{},
		Clanker: map[engine.ConversationID]string{}, Images: map[string][]byte{}}
}

// Attach sets where the page's results and events go: the engine's Send.
func (p *Page) Attach(sink func(engine.Event) error) {
	p.Lock()
	p.sink = sink
	p.Unlock()
}

// Conv returns conversation id of the world, adding it (named "Group <id>") when it is new.
// Call with the page locked.
func (p *Page) Conv(id engine.ConversationID) *Conv {
	c := p.Convs[id]
	if c == nil {
		c = &Conv{Name: "Group " + string(id)}
		p.Convs[id] = c
	}
	return c
}

// Show puts conversation id on screen without telling the engine anything: for a test that
// sends the page's events itself.
func (p *Page) Show(id engine.ConversationID) {
	p.Lock()
	p.Current = id
	p.Unlock()
}

// SetNoNav sets NoNav.
func (p *Page) SetNoNav(v bool) {
	p.Lock()
	p.NoNav = v
	p.Unlock()
}

// SetHoldText sets HoldText.
func (p *Page) SetHoldText(v bool) {
	p.Lock()
	p.HoldText = v
	p.Unlock()
}

// SetUserActive sets UserActive.
func (p *Page) SetUserActive(v bool) {
	p.Lock()
	p.UserActive = v
	p.Unlock()
}

// SwitchTo puts conversation id on screen and returns the events the bridge reports for the
// switch. Call with the page locked.
func (p *Page) SwitchTo(id engine.ConversationID) []engine.Event {
	p.Current = id
	evs := []engine.Event{engine.ConversationChanging{To: id}, p.View(id)}
	if p.SingleRecord {
		clear(p.Clanker)
		if p.Box[id] != "" {
			p.Conv(id).Draft = true
			evs = append(evs, engine.ComposeState{Conversation: id, HasDraft: true})
		}
	}
	return evs
}

// View is the page's report of conversation id as it stands, with whatever lingers of another
// pane. Call with the page locked.
func (p *Page) View(id engine.ConversationID) engine.ConversationOpened {
	c := p.Conv(id)
	ev := engine.ConversationOpened{ID: id, Participants: []engine.Participant{{Name: c.Name}}, Messages: append([]engine.Message(nil), c.Msgs...)}
	if len(c.Header) > 0 {
		ev.Participants = nil
		for _, n := range c.Header {
			ev.Participants = append(ev.Participants, engine.Participant{Name: n})
		}
	}
	if p.LingerViews > 0 {
		p.LingerViews--
		ev.Messages = append(append([]engine.Message(nil), p.Lingering...), ev.Messages...)
		if p.LingerHeader != "" {
			ev.Participants = []engine.Participant{{Name: p.LingerHeader}}
		}
	}
	return ev
}

// Sidebar is the sidebar of the world: one row per conversation with its last message as the
// snippet. Call with the page locked.
func (p *Page) Sidebar() engine.SidebarUpdate {
	var rows []engine.SidebarRow
	for id, c := range p.Convs {
		snip := ""
		if n := len(c.Msgs); n > 0 {
			m := c.Msgs[n-1]
			if m.Direction == engine.Outgoing {
				snip = "You: " + m.Text
			} else {
				snip = m.Sender + ": " + m.Text
			}
		}
		rows = append(rows, engine.SidebarRow{ID: id, Name: c.Name, Snippet: snip})
	}
	return engine.SidebarUpdate{Rows: rows}
}

// Do implements engine.Page.
func (p *Page) Do(cmd engine.Command) {
	p.Lock()
	p.cmds = append(p.cmds, cmd)
	var after []engine.Event
	errText := ""
	var data []byte
	textCmd := cmd.Kind == engine.CmdInsertText || cmd.Kind == engine.CmdTypeText || cmd.Kind == engine.CmdPressEnter
	switch {
	case textCmd && cmd.Conversation != p.Current:
		errText = engine.ResultWrongConversation
	case cmd.Kind == engine.CmdInsertText:
		if p.Conv(cmd.Conversation).Draft {
			errText = engine.ResultUserTyping
		} else {
			p.Box[cmd.Conversation] = cmd.Text
			p.Clanker[cmd.Conversation] = cmd.Text
			if p.TypeAfterInsert {
				p.TypeAfterInsert = false
				p.Conv(cmd.Conversation).Draft = true
			}
		}
	case cmd.Kind == engine.CmdTypeText && p.Conv(cmd.Conversation).Draft:
		errText = engine.ResultUserTyping // the user typed into the box meanwhile
	case cmd.Kind == engine.CmdTypeText:
		if p.Box[cmd.Conversation] != p.Clanker[cmd.Conversation] {
			errText = engine.ResultUserTyping
		} else {
			p.Box[cmd.Conversation] += cmd.Text
			p.Clanker[cmd.Conversation] += cmd.Text
		}
	case cmd.Kind == engine.CmdRemoveText:
		errText, data = p.remove(cmd.Text)
		if c := p.Conv(p.Current); p.SingleRecord && c.Draft && p.Box[p.Current] == "" {
			c.Draft = false
			after = append(after, engine.ComposeState{Conversation: p.Current})
		}
	case cmd.Kind == engine.CmdPressEnter && p.Conv(cmd.Conversation).Draft:
		errText = engine.ResultUserTyping // as the bridge's focus before the Enter refuses
	case cmd.Kind == engine.CmdPressEnter:
		var ev engine.Event
		errText, ev = p.send(cmd.Conversation)
		if ev != nil {
			after = append(after, ev)
		}
	case cmd.Kind == engine.CmdNavigate && cmd.Visit && p.UserActive:
		errText = engine.ResultUserActive
	case cmd.Kind == engine.CmdNavigate:
		if !p.NoNav {
			after = append(after, p.SwitchTo(cmd.Conversation)...)
		}
	case cmd.Kind == engine.CmdResync:
		after = append(after, p.View(p.Current))
	case cmd.Kind == engine.CmdReadCompose:
		// The bridge reads the box on screen and reports it, even when nothing changed.
		d := p.Conv(p.Current).Draft
		after = append(after, engine.ComposeState{Conversation: p.Current, HasDraft: d, Focused: d})
	case cmd.Kind == engine.CmdFetchImage:
		data = p.Images[cmd.Src]
		if data == nil {
			errText = "not found"
		}
	}
	hold := cmd.Kind == engine.CmdFetchImage && p.HoldFetch
	if p.HoldText && textCmd {
		hold = true
		p.held = append(p.held, engine.CommandResult{ID: cmd.ID, Err: errText, Data: data})
		p.held = append(p.held, after...)
	}
	sink := p.sink
	p.Unlock()
	if hold || sink == nil {
		return
	}
	p.deliver(sink, engine.CommandResult{ID: cmd.ID, Err: errText, Data: data})
	for _, ev := range after {
		p.deliver(sink, ev)
	}
}

// ReleaseHeld delivers the text results held so far, in order (HoldText stays as it is).
func (p *Page) ReleaseHeld() {
	p.Lock()
	held, sink := p.held, p.sink
	p.held = nil
	p.Unlock()
	for _, ev := range held {
		if sink != nil {
			p.deliver(sink, ev)
		}
	}
}

// remove takes Clanker's text out of the box on screen. Call with the page locked.
//
// Like the bridge's clear_inserted, it acts on the box on screen, whatever conversation the
// command names: sent after the user switched away, it misses the box that holds Clanker's
// text. With the text named and no record of its own (a remove that missed, or a page loaded
// since), it removes that text from the start of the box, where Clanker's typing always
// begins. A remove that finds nothing makes it forget its record, as the bridge's single
// record is dropped then.
func (p *Page) remove(text string) (errText string, data []byte) {
	on := p.Current
	box := p.Box[on]
	switch ins := p.Clanker[on]; {
	case ins != "":
		if i := strings.LastIndex(box, ins); i >= 0 {
			p.Box[on] = box[:i] + box[i+len(ins):]
		}
	case text != "" && strings.HasPrefix(box, text):
		p.Box[on] = box[len(text):]
	case text != "":
		errText = "not_found"
		clear(p.Clanker)
	}
	p.Clanker[on] = ""
	if p.RemoveHow != "" && errText == "" {
		data = []byte(`{"removed": 3, "how": "` + p.RemoveHow + `"}`)
	}
	return errText, data
}

// NothingToSend is the error of an Enter pressed on an empty box.
const NothingToSend = "nothing to send"

// send presses Enter in conv's box. An empty box sends nothing. Call with the page locked.
func (p *Page) send(conv engine.ConversationID) (errText string, echo engine.Event) {
	text := p.Box[conv]
	if text == "" {
		return NothingToSend, nil
	}
	if p.BeforeSend != nil {
		if err := p.BeforeSend(conv, text); err != nil {
			return err.Error(), nil
		}
	}
	p.Box[conv], p.Clanker[conv] = "", ""
	p.sent = append(p.sent, Sent{Conversation: conv, Text: text, At: time.Now()})
	p.seq++
	// The clock in the id keeps ids apart across pages: a rig restarted on the same store
	// starts a new page, and the store remembers the ids the old one sent.
	m := engine.Message{ID: fmt.Sprintf("sent-%d-%d", time.Now().UnixNano(), p.seq), Sender: "You", Direction: engine.Outgoing, Text: text}
	p.Conv(conv).Msgs = append(p.Conv(conv).Msgs, m)
	return "", engine.MessageAdded{Conversation: conv, Message: m}
}

func (p *Page) deliver(sink func(engine.Event) error, ev engine.Event) {
	if err := sink(ev); err != nil {
		p.Lock()
		p.sendErrs = append(p.sendErrs, fmt.Errorf("%T: %w", ev, err))
		p.Unlock()
	}
}

// SendErrors are the errors the sink returned for the page's results and events (an event the
// engine refused as invalid, or one sent after it stopped).
func (p *Page) SendErrors() []error {
	p.Lock()
	defer p.Unlock()
	return append([]error(nil), p.sendErrs...)
}

// Commands returns the commands of the given kinds in the order they came (all commands when
// no kind is given).
func (p *Page) Commands(kinds ...engine.CommandKind) []engine.Command {
	p.Lock()
	defer p.Unlock()
	var out []engine.Command
	for _, c := range p.cmds {
		if len(kinds) == 0 {
			out = append(out, c)
			continue
		}
		for _, k := range kinds {
			if c.Kind == k {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// Sent returns every text sent so far.
func (p *Page) Sent() []Sent {
	p.Lock()
	defer p.Unlock()
	return append([]Sent(nil), p.sent...)
}

// SentTexts returns the texts sent so far, in order.
func (p *Page) SentTexts() []string {
	var out []string
	for _, s := range p.Sent() {
		out = append(out, s.Text)
	}
	return out
}

// Toasts returns the text of every toast shown.
func (p *Page) Toasts() []string {
	var out []string
	for _, c := range p.Commands(engine.CmdToast) {
		out = append(out, c.Text)
	}
	return out
}

// Banners returns the text of every non-empty banner shown under key.
func (p *Page) Banners(key string) []string {
	var out []string
	for _, c := range p.Commands(engine.CmdBanner) {
		if c.Key == key && c.Text != "" {
			out = append(out, c.Text)
		}
	}
	return out
}
