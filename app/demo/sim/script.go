package sim

import "time"

// DemoGroup is the group conversation the demo script creates and its friends write in.
const DemoGroup = "Weekend trip"

// ScriptLine is one message a scripted friend sends: text, an image, or both.
type ScriptLine struct {
	// After is how long after its cue the line is sent: the script's start for Lines, the
	// switch of the group for WhenAvailable and WhenActive. History ignores it.
	After time.Duration
	From  string
	Text  string
	// Image is a media name (MediaPhoto, MediaChart, MediaGIF), generated at run time.
	Image string
}

// Script makes friends write by themselves, as `clanker demo` shows them: it creates Group
// with its History when it starts, then sends each of Lines at its time. It reacts to the
// app too: the first time Clanker is switched to Available (or Active) in the group
// (ClankerMode), the friends send WhenAvailable (or WhenActive), so someone speaks to
// Clanker once it listens. (The demo's guide to switching Clanker on is the app's, beside
// its status pill, not the page's.)
//
// The script runs on the server's timers, so under testing/synctest it follows the bubble's
// clock; a server without Options.Script never changes by itself.
type Script struct {
	Group         NewConversation
	History       []ScriptLine
	Lines         []ScriptLine
	WhenAvailable []ScriptLine
	WhenActive    []ScriptLine
}

// DemoScript is the script `clanker demo` plays: within the first minute someone in the group
// addresses Clanker, someone else chats and a photo arrives; more follows over the next
// minutes, and friends speak to Clanker as soon as it is switched on.
func DemoScript() *Script {
	s := time.Second
	return &Script{
		Group: NewConversation{Name: DemoGroup, Participants: []string{"Maya", "Leo", "Priya"}, RCS: true},
		History: []ScriptLine{
			{From: "Maya", Text: "The lake house is booked for Saturday and Sunday!"},
			{From: "Leo", Text: "Amazing. Who's driving?"},
			{From: "Priya", Text: "I can take three people in my car."},
		},
		Lines: []ScriptLine{
			{After: 6 * s, From: "Leo", Text: "I'll bring the board games and the big speaker."},
			{After: 15 * s, From: "Maya", Text: "Clanker, what should we cook on Saturday night?"},
			{After: 28 * s, From: "Priya", Text: "This is the view from the deck last year", Image: MediaPhoto},
			{After: 42 * s, From: "Leo", Text: "Wow. Is the forecast any good?"},
			{After: 55 * s, From: "Maya", Text: "Clanker, can you make us a packing list?"},
			{After: 90 * s, From: "Priya", Text: "Who's in charge of the playlist for the drive?"},
			{After: 130 * s, From: "Leo", Text: "Me, obviously. Haha"},
			{After: 170 * s, From: "Maya", Text: "Clanker, any ideas for a rainy afternoon there?"},
			{After: 220 * s, From: "Priya", Text: "I'll pick up snacks on the way, requests?"},
			{After: 270 * s, From: "Leo", Text: "Clanker, settle this: board games or a movie night?"},
		},
		WhenAvailable: []ScriptLine{
			{After: 5 * s, From: "Maya", Text: "Clanker, are you there? Say hi to everyone!"},
			{After: 25 * s, From: "Leo", Text: "Clanker, what's the best board game for five people?"},
		},
		WhenActive: []ScriptLine{
			{After: 8 * s, From: "Leo", Text: "I can pick everyone up at 9, my car fits four."},
			{After: 25 * s, From: "Priya", Text: "Is anyone bringing coffee? I'm useless without it."},
		},
	}
}

// scriptState is what the running script keeps between its cues.
type scriptState struct {
	group   string
	reacted map[string]bool // modes the friends already reacted to
}

// startScriptLocked creates the group with its history and schedules the timed lines. It
// panics on a mistake in the script, like the demo content, because the script is fixed.
func (s *Server) startScriptLocked() {
	sc := s.opts.Script
	c, err := s.createLocked(sc.Group)
	if err != nil {
		panic("sim script: " + err.Error())
	}
	for _, l := range sc.History {
		if _, err := s.addLocked(c.ID, Message{From: l.From, Text: l.Text, Image: l.Image}, false); err != nil {
			panic("sim script history: " + err.Error())
		}
	}
	c.Unread = false // history, not news
	s.script = &scriptState{group: c.ID, reacted: map[string]bool{}}
	s.scheduleLocked(c.ID, sc.Lines)
}

// scheduleLocked sends each line at its time, on timers that Reset and Close stop.
func (s *Server) scheduleLocked(conv string, lines []ScriptLine) {
	if s.timers == nil {
		return
	}
	for _, l := range lines {
		var t *time.Timer
		t = time.AfterFunc(l.After, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.closed || !s.timers[t] {
				return
			}
			delete(s.timers, t)
			s.deliverLocked(conv, Message{From: l.From, Text: l.Text, Image: l.Image})
		})
		s.timers[t] = true
	}
}

// deliverLocked adds a scripted friend's message and shows it on the pages.
func (s *Server) deliverLocked(conv string, m Message) {
	stored, err := s.addLocked(conv, m, false)
	if err != nil {
		s.log.Error("scripted message not delivered", "conversation", conv, "err", err)
		return
	}
	v := s.viewLocked(stored)
	s.publishLocked(event{Type: "message", Conversation: conv, Row: &v, Sidebar: s.pageSidebarLocked()})
}

// ScriptGroup is the id of the group the script created, or "" without a script.
func (s *Server) ScriptGroup() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.script == nil {
		return ""
	}
	return s.script.group
}

// ClankerMode tells the script which mode Clanker now has in a conversation ("deactivated",
// "available", "active"), as the app's status pill shows it. The first switch of the group
// to Available or Active makes the friends react with that mode's lines.
// Without a script, or for another conversation, it does nothing.
func (s *Server) ClankerMode(conv, mode string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.script == nil || s.closed || conv != s.script.group {
		return
	}
	var lines []ScriptLine
	switch mode {
	case "available":
		lines = s.opts.Script.WhenAvailable
	case "active":
		lines = s.opts.Script.WhenActive
	default:
		return
	}
	if s.script.reacted[mode] {
		return
	}
	s.script.reacted[mode] = true
	s.scheduleLocked(conv, lines)
}
