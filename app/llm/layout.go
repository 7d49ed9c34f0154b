package llm

import (
	"maps"
	"slices"
	"sync"

	"github.com/clanker-desktop/clanker/app/engine"
)

// layouts keeps, for each conversation, where the model's view stands between requests (an
// engine.Window) and the memory shown at the base of that view, so that a request repeats the
// previous one's prefix byte for byte (issue 32). The engine hands over every message it holds;
// engine.HistoryWindow picks what is shown.
//
// The memory shown is the stored memory as it stood when the window was laid out. The model's
// later updates are saved at once but shown only when the window is laid out again, which is
// what keeps the prefix in place while the model rewrites its summary. Nothing is lost by it:
// every message since the base is shown, and the model is told so in the rules. The memory is
// taken again, without moving the window, when someone else changed it (the user edited or
// purged it, or the engine did not save an answer as given) and after the model wrote memory
// while looking at an image (what it saw is in no message). A persona change applies at once
// without that: a note placed after the newest message the model had seen says so.
//
// The window moves past messages the model has seen only after it answered a request that told
// it they would leave its view, and after that answer's memory update was saved. The latter is
// checked by comparing the stored memory with what the answers this adapter returned would have
// made of it: any difference is someone else's change, and the notice is given again.
type layouts struct {
	mu    sync.Mutex
	convs map[engine.ConversationID]*layoutState
}

type layoutState struct {
	win  engine.Window
	base engine.Memory // the memory shown at the base of the window
	// expected is what the store holds if nothing but this adapter's answers changed the memory
	// since it was last read.
	expected engine.Memory
	refresh  bool // take the memory again at the next request
	// personas are the persona changes since the memory shown was taken, each noted after the
	// message that was newest when it was first shown.
	personas []personaChange
	last     layoutPlan
	lastN    int // how many messages the engine held at the last request
}

type personaChange struct {
	after, persona string
}

// layoutPlan is what one request shows.
type layoutPlan struct {
	view   engine.View
	shown  []engine.Message
	base   engine.Memory
	notes  []Note
	notice bool
}

// plan lays out the request: which messages are shown and which memory stands before them. mem is
// the memory as stored now. An image follow-up repeats its first request's layout exactly.
func (l *layouts) plan(req engine.LLMRequest, mem engine.Memory) layoutPlan {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.convs == nil {
		l.convs = map[engine.ConversationID]*layoutState{}
	}
	st := l.convs[req.Conversation]
	msgs := req.History
	if st != nil && req.Image != nil && st.lastN == len(msgs) {
		return st.last
	}
	if st == nil {
		st = &layoutState{}
		l.convs[req.Conversation] = st
		st.refresh = true
	} else if !sameMemory(mem, st.expected) {
		// Someone else changed the memory: the answer to a notice may not have been saved.
		st.win.Answered = false
		st.refresh = true
	}
	size := req.HistorySize
	if size <= 0 {
		size = 20
	}
	seen := st.win.Seen
	st.win.MemoryChanged = st.refresh || !sameMemory(mem, st.base)
	view, next := engine.HistoryWindow(msgs, size, st.win)
	if next.Layout != st.win.Layout || st.refresh {
		st.base, st.personas, st.refresh = cloneMemory(mem), nil, false
	} else if mem.Customization != st.persona() {
		// The persona applies at once: a note after what the model saw last says so, and the
		// prefix before it stays as it was.
		st.personas = append(st.personas, personaChange{after: seen, persona: mem.Customization})
	}
	st.win, st.lastN = next, len(msgs)
	st.expected = cloneMemory(mem)
	st.last = st.planOf(view, msgs)
	return st.last
}

// persona is the customization the model was last shown.
func (st *layoutState) persona() string {
	if n := len(st.personas); n > 0 {
		return st.personas[n-1].persona
	}
	return st.base.Customization
}

func (st *layoutState) planOf(v engine.View, msgs []engine.Message) layoutPlan {
	p := layoutPlan{view: v, base: st.base, notice: v.Notice}
	p.shown = make([]engine.Message, 0, v.Shown(len(msgs)))
	p.shown = append(p.shown, msgs[v.Start:v.GapFrom]...)
	if skipped := v.GapTo - v.GapFrom; skipped > 0 {
		p.notes = append(p.notes, Note{At: len(p.shown), Text: gapNote(skipped)})
	}
	p.shown = append(p.shown, msgs[v.GapTo:]...)
	for _, c := range st.personas {
		at := len(p.shown) // not found: the change is noted last
		for i, m := range p.shown {
			if m.ID == c.after {
				at = i + 1
				break
			}
		}
		p.notes = append(p.notes, Note{At: at, Text: personaNote(c.persona)})
	}
	slices.SortStableFunc(p.notes, func(a, b Note) int { return a.At - b.At })
	return p
}

// request is the prompt's request for the engine's req laid out by p.
func (p layoutPlan) request(req engine.LLMRequest) Request {
	r := Request{LLMRequest: req, Memory: p.base, Older: p.view.Start, Notes: p.notes, Notice: p.notice}
	r.History = p.shown
	return r
}

// answered records a successful answer: the memory it will make of the stored one, whether it
// answers a notice, and whether what the model saw in an image may be in its memory now.
func (l *layouts) answered(req engine.LLMRequest, p layoutPlan, r engine.Reply) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.convs[req.Conversation]
	if st == nil {
		return
	}
	upd := r.Update
	if req.Kind == engine.RequestNews {
		upd.CustomizationSet, upd.Customization = false, nil // the engine keeps no persona from news
	}
	st.expected = applyUpdate(st.expected, upd)
	if p.notice && r.RequestImage == "" && st.win.Mark != "" {
		st.win.Answered = true
	}
	if req.Image != nil && !upd.Empty() {
		st.refresh = true
	}
}

// applyUpdate is what the store makes of mem with a context update (engine.Store.ApplyContext).
func applyUpdate(mem engine.Memory, u engine.ContextUpdate) engine.Memory {
	out := cloneMemory(mem)
	if u.Summary != nil && *u.Summary != "" {
		out.Summary = *u.Summary
	}
	if u.CustomizationSet {
		out.Customization = ""
		if u.Customization != nil {
			out.Customization = *u.Customization
		}
	}
	if u.ProfilesSet {
		out.Profiles = maps.Clone(u.Profiles)
	}
	return out
}

func cloneMemory(m engine.Memory) engine.Memory {
	m.Profiles = maps.Clone(m.Profiles)
	return m
}

func sameMemory(a, b engine.Memory) bool {
	return a.Summary == b.Summary && a.Customization == b.Customization && len(a.Profiles) == len(b.Profiles) && maps.Equal(a.Profiles, b.Profiles)
}
