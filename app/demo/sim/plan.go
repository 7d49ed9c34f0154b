package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// The page-behaviour generator: a seed picks a combination of behaviour variants and a
// session of steps (messages, reactions, switches, quick switches, one-shot behaviours,
// pauses) over a cast of conversations whose people have names that are hard to read
// right (bidi scripts, emoji sequences, commas and periods). The same seed always gives the
// same plan; the page's own timing still varies from run to run.

// StepKind is what one plan step does.
type StepKind string

const (
	StepDeliver StepKind = "deliver" // a participant writes in Conv
	StepReact   StepKind = "react"   // a participant reacts to the message Target places from the end of Conv
	StepClick   StepKind = "click"   // the user clicks Conv in the sidebar
	StepQuick   StepKind = "quick"   // the user clicks Conv, then Conv2 MS later
	StepBehave  StepKind = "behave"  // the page carries out Behaviour
	StepWait    StepKind = "wait"    // nothing happens for MS
	StepCreate  StepKind = "create"  // someone writes for the first time: a new conversation (Conv is its index)
)

// PlanStep is one step; After is the pause before the next one.
type PlanStep struct {
	Kind      StepKind  `json:"kind"`
	Conv      int       `json:"conv"`
	Conv2     int       `json:"conv2,omitempty"`
	From      string    `json:"from,omitempty"`
	Text      string    `json:"text,omitempty"`
	Target    int       `json:"target,omitempty"`
	Reaction  string    `json:"reaction,omitempty"`
	Behaviour Behaviour `json:"behaviour"`
	MS        int       `json:"ms,omitempty"`
	After     int       `json:"after"`
}

func (p PlanStep) String() string {
	var s string
	switch p.Kind {
	case StepDeliver:
		s = fmt.Sprintf("deliver to c%d from %q: %q", p.Conv, p.From, p.Text)
	case StepReact:
		s = fmt.Sprintf("react %s in c%d by %q to message -%d", p.Reaction, p.Conv, p.From, p.Target)
	case StepClick:
		s = fmt.Sprintf("click c%d", p.Conv)
	case StepQuick:
		s = fmt.Sprintf("click c%d, then c%d %d ms later", p.Conv, p.Conv2, p.MS)
	case StepBehave:
		b := p.Behaviour
		if b.Kind == BehaveOpenAt || b.Kind == BehaveSwitchLate {
			b.Conversation = fmt.Sprintf("c%d", p.Conv)
		}
		s = "behave " + b.String()
	case StepWait:
		s = fmt.Sprintf("wait %d ms", p.MS)
	case StepCreate:
		s = fmt.Sprintf("first-time writer %q starts c%d: %q", p.From, p.Conv, p.Text)
	}
	return fmt.Sprintf("%s (then %d ms)", s, p.After)
}

// PlanConversation is one conversation of a plan's cast, created before the page loads
// (Created = false) or by a StepCreate.
type PlanConversation struct {
	New     NewConversation `json:"new"`
	History int             `json:"history"`
	Created bool            `json:"created,omitempty"`
}

// Plan is one generated session.
type Plan struct {
	Seed     uint64    `json:"seed"`
	Variants []Variant `json:"variants"`
	// LingerMS is how long old panes stay hidden with VariantLinger (Options.LingerMS): from
	// a transition's moment to a page stack that keeps them for seconds.
	LingerMS      int                `json:"lingerMs"`
	Conversations []PlanConversation `json:"conversations"`
	Steps         []PlanStep         `json:"steps"`
}

// planCast are the plan's conversations. The names are the ground truth; with
// VariantBidiNames the page draws them decorated.
var planCast = []PlanConversation{
	{New: NewConversation{Participants: []string{"Zoë 👩🏽‍💻"}, RCS: true}, History: 48},
	{New: NewConversation{Name: "Trip", Participants: []string{"نور الهدى", "Dr. Alice Chen", "Leo ❤️"}}, History: 62},
	{New: NewConversation{Participants: []string{"דנה כהן"}}, History: 40},
	{New: NewConversation{Participants: []string{"Smith, Jane", "Mia-Rose O'Neil"}}, History: 44},
	{New: NewConversation{Participants: []string{"Ana María"}, Archived: true}, History: 12},
}

// newcomer is who writes for the first time (StepCreate).
var newcomer = NewConversation{Participants: []string{"José Ñúñez"}}

var planWords = []string{"lunch", "tickets", "ferry", "museum", "rain", "train", "keys", "photos", "dinner", "map"}

var reactionKinds = []string{"love", "laugh", "like", "wow"}

// NewPlan draws the session of seed with n steps.
func NewPlan(seed uint64, n int) Plan {
	r := rand.New(rand.NewPCG(seed, 0x5eed9a6e))
	p := Plan{Seed: seed, Conversations: slices.Clone(planCast)}
	for _, v := range BehaviourVariants {
		if r.IntN(10) < 4 {
			p.Variants = append(p.Variants, v)
		}
	}
	p.LingerMS = []int{400, 1000, 3000, 10000}[r.IntN(4)]
	live := len(planCast) - 1 // conversations in the sidebar (the last of the cast is archived)
	current := 0              // the test opens conversation 0 first
	msgs := map[int]int{}     // messages delivered so far per conversation
	for i := range planCast {
		msgs[i] = planCast[i].History
	}
	created := false
	people := func(c int) []string { return p.Conversations[c].New.Participants }
	text := func(c int) string {
		w := planWords[r.IntN(len(planWords))]
		t := fmt.Sprintf("%s p%dn%d", w, c, msgs[c])
		if r.IntN(4) == 0 {
			t = "Clanker, " + t + "?"
		}
		return t
	}
	type weighted struct {
		k StepKind
		w int
	}
	kinds := []weighted{{StepDeliver, 30}, {StepReact, 5}, {StepClick, 10}, {StepQuick, 5}, {StepBehave, 35}, {StepWait, 14}, {StepCreate, 1}}
	total := 0
	for _, k := range kinds {
		total += k.w
	}
	for len(p.Steps) < n {
		x := r.IntN(total)
		var k StepKind
		for _, kw := range kinds {
			if x < kw.w {
				k = kw.k
				break
			}
			x -= kw.w
		}
		st := PlanStep{Kind: k, After: r.IntN(300)}
		switch k {
		case StepDeliver:
			c := current
			if r.IntN(10) >= 6 {
				c = r.IntN(live)
			}
			st.Conv, st.From, st.Text = c, people(c)[r.IntN(len(people(c)))], text(c)
			msgs[c]++
		case StepReact:
			st.Conv, st.Target, st.Reaction = current, r.IntN(8), reactionKinds[r.IntN(len(reactionKinds))]
			st.From = people(current)[r.IntN(len(people(current)))]
		case StepClick:
			st.Conv = r.IntN(live)
			current = st.Conv
		case StepQuick:
			st.Conv, st.Conv2, st.MS = r.IntN(live), r.IntN(live), 50+r.IntN(250)
			current = st.Conv2
		case StepBehave:
			st.Behaviour = drawBehaviour(r)
			if st.Behaviour.Kind == BehaveOpenAt {
				st.Conv = r.IntN(live)
				current = st.Conv
			}
		case StepWait:
			st.MS = 100 + r.IntN(1400)
		case StepCreate:
			if created {
				continue
			}
			created = true
			p.Conversations = append(p.Conversations, PlanConversation{New: newcomer, Created: true})
			st.Conv = len(p.Conversations) - 1
			st.From, st.Text = newcomer.Participants[0], "hi, it's José from the climbing gym"
			msgs[st.Conv] = 1
		}
		p.Steps = append(p.Steps, st)
	}
	return p
}

// drawBehaviour draws one behaviour with its parameters.
func drawBehaviour(r *rand.Rand) Behaviour {
	b := Behaviour{Seed: r.Uint32() | 1}
	switch x := r.IntN(100); {
	case x < 18:
		b.Kind, b.N = BehaveScrollBack, 5+r.IntN(36)
	case x < 30:
		b.Kind, b.N = BehaveScrollDown, 5+r.IntN(36)
	case x < 36:
		b.Kind = BehaveJumpLive
	case x < 46:
		b.Kind, b.N = BehaveRerenderList, r.IntN(16)
	case x < 56:
		b.Kind, b.MS = BehaveRerenderPane, r.IntN(600)
	case x < 63:
		b.Kind, b.MS = BehaveReinsert, r.IntN(200)
	case x < 70:
		b.Kind, b.N = BehaveMoveRow, r.IntN(6)
	case x < 80:
		b.Kind, b.N = BehaveOpenAt, 5+r.IntN(36)
	case x < 88:
		b.Kind, b.MS = BehaveTyping, 500+r.IntN(1500)
	default:
		b.Kind = BehaveSearch
		if r.IntN(3) > 0 {
			b.Query = planWords[r.IntN(len(planWords))]
		}
	}
	return b
}

// PlanWorld is a plan set up on a simulator: the conversation ids by cast index (empty for
// conversations a step creates until it runs) and the messages' ids as delivered.
type PlanWorld struct {
	IDs []string
}

// Setup creates the plan's conversations that exist before the page loads, with their
// history (one message a minute on the simulator clock, as every message).
func (p Plan) Setup(s *Server) (*PlanWorld, error) {
	w := &PlanWorld{IDs: make([]string, len(p.Conversations))}
	for i, pc := range p.Conversations {
		if pc.Created {
			continue
		}
		c, err := s.CreateConversation(pc.New)
		if err != nil {
			return nil, fmt.Errorf("plan seed %d: %w", p.Seed, err)
		}
		w.IDs[i] = c.ID
		for k := 0; k < pc.History; k++ {
			people := pc.New.Participants
			m := Message{From: people[k%len(people)], Text: fmt.Sprintf("%s p%dn%d", planWords[k%len(planWords)], i, k)}
			if k%9 == 4 {
				m = Message{Text: fmt.Sprintf("ok %s p%dn%d", planWords[(k+3)%len(planWords)], i, k), Outgoing: true}
			}
			var err error
			if m.Outgoing {
				_, err = s.deliverOutgoing(c.ID, m.Text)
			} else {
				_, err = s.Deliver(c.ID, m)
			}
			if err != nil {
				return nil, fmt.Errorf("plan seed %d history: %w", p.Seed, err)
			}
		}
	}
	return w, nil
}

// Play carries out one step on the simulator (the page must be connected for clicks and
// behaviours) and then waits the step's pause.
func (p Plan) Play(s *Server, w *PlanWorld, st PlanStep) error {
	id := func(i int) string { return w.IDs[i] }
	var err error
	switch st.Kind {
	case StepDeliver:
		_, err = s.Deliver(id(st.Conv), Message{From: st.From, Text: st.Text})
	case StepReact:
		var ms []Message
		if ms, err = s.Messages(id(st.Conv)); err == nil {
			var target string
			for i, n := len(ms)-1, 0; i >= 0; i-- {
				if ms[i].Tombstone || ms[i].Pending {
					continue
				}
				target = ms[i].ID
				if n == st.Target {
					break
				}
				n++
			}
			if target != "" {
				_, err = s.Deliver(id(st.Conv), Message{Reaction: &Reaction{Target: target, From: st.From, Kind: st.Reaction}})
			}
		}
	case StepClick:
		err = s.ClickConversation(id(st.Conv))
	case StepQuick:
		if err = s.ClickConversation(id(st.Conv)); err == nil {
			time.Sleep(time.Duration(st.MS) * time.Millisecond)
			err = s.ClickConversation(id(st.Conv2))
		}
	case StepBehave:
		b := st.Behaviour
		if b.Kind == BehaveOpenAt || b.Kind == BehaveSwitchLate {
			b.Conversation = id(st.Conv)
		}
		err = s.Behave(b)
	case StepWait:
		time.Sleep(time.Duration(st.MS) * time.Millisecond)
	case StepCreate:
		var c Conversation
		if c, err = s.CreateConversation(p.Conversations[st.Conv].New); err == nil {
			w.IDs[st.Conv] = c.ID
			_, err = s.Deliver(c.ID, Message{From: st.From, Text: st.Text})
		}
	}
	if err != nil {
		return fmt.Errorf("plan seed %d, %s: %w", p.Seed, st, err)
	}
	time.Sleep(time.Duration(st.After) * time.Millisecond)
	return nil
}

// VariantList is the plan's variants as a comma-separated list (for reports).
func (p Plan) VariantList() string {
	var vs []string
	for _, v := range p.Variants {
		vs = append(vs, string(v))
	}
	return strings.Join(vs, ",")
}

// deliverOutgoing stores a message the local user sent earlier (history), shown on the pages.
func (s *Server) deliverOutgoing(conv, text string) (Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.addLocked(conv, Message{Text: text, Status: "Read"}, true)
	if err != nil {
		return Message{}, err
	}
	v := s.viewLocked(m)
	s.publishLocked(event{Type: "message", Conversation: conv, Row: &v, Sidebar: s.pageSidebarLocked()})
	return *m, nil
}
