package sim

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestPlainNameStripsBidiControlsAndKeepsEmojiSequences(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\u2068Jane Doe\u2069", "Jane Doe"},
		{"Jane Doe\u200e", "Jane Doe"},
		{"\u200fنور الهدى\u200f", "نور الهدى"},
		{"Jane\u00a0Doe", "Jane Doe"},
		{"\u2066Ana\u00a0María\u2069\u200e", "Ana María"},
		{"  Dr.  Alice\tChen ", "Dr. Alice Chen"},
		{"Zoë 👩🏽\u200d💻", "Zoë 👩🏽\u200d💻"}, // the zero-width joiner is part of the emoji
		{"Leo ❤\ufe0f", "Leo ❤\ufe0f"},     // so is the variation selector
	} {
		if got := PlainName(c.in); got != c.want {
			t.Errorf("PlainName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestEveryDecorationReadsAsTheName(t *testing.T) {
	forms := map[string]bool{}
	for _, name := range []string{"Jane Doe", "نور الهدى", "Zoë 👩🏽\u200d💻", "Smith, Jane", "Dr. Alice Chen", "(555) 555-0142"} {
		for _, place := range []string{"label", "header", "sidebar", "sender", "snippet", "label-reactor"} {
			d := decorate(place, name)
			if PlainName(d) != name {
				t.Errorf("decorate(%q, %q) = %q reads %q", place, name, d, PlainName(d))
			}
			forms[strings.Map(func(r rune) rune {
				if isBidiControl(r) || r == '\u00a0' {
					return r
				}
				return -1
			}, d)] = true
		}
	}
	if len(forms) < 5 {
		t.Errorf("only %d kinds of decoration drawn: %v", len(forms), forms)
	}
	if decorate("label", "You") != "You" {
		t.Errorf("the local user's name is decorated")
	}
}

func TestPlansAreReproducibleAndCombineBehaviours(t *testing.T) {
	a, b := NewPlan(42, 60), NewPlan(42, 60)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave two plans")
	}
	if reflect.DeepEqual(a.Steps, NewPlan(43, 60).Steps) {
		t.Fatal("two seeds gave the same steps")
	}
	kinds := map[StepKind]bool{}
	behaviours := map[BehaviourKind]bool{}
	variants := map[Variant]int{}
	for seed := uint64(1); seed <= 50; seed++ {
		p := NewPlan(seed, 40)
		if len(p.Steps) != 40 {
			t.Fatalf("seed %d: %d steps", seed, len(p.Steps))
		}
		for _, v := range p.Variants {
			variants[v]++
		}
		for _, st := range p.Steps {
			kinds[st.Kind] = true
			if st.Kind == StepBehave {
				behaviours[st.Behaviour.Kind] = true
			}
			if st.Kind == StepCreate && !p.Conversations[st.Conv].Created {
				t.Fatalf("seed %d: a create step for a conversation that exists from the start", seed)
			}
		}
	}
	for _, k := range []StepKind{StepDeliver, StepReact, StepClick, StepQuick, StepBehave, StepWait, StepCreate} {
		if !kinds[k] {
			t.Errorf("50 plans have no %s step", k)
		}
	}
	for k := range knownBehaviours {
		// A switch with the address late is what VariantReusePane does on random switches;
		// the behaviour is its scripted form, for shapes, and plans leave it out so that a
		// seed's steps stay what they were when SWEEPS.md recorded it.
		if !behaviours[k] && k != BehaveSwitchLate {
			t.Errorf("50 plans never use the behaviour %s", k)
		}
	}
	for _, v := range BehaviourVariants {
		if variants[v] == 0 || variants[v] == 50 {
			t.Errorf("variant %s is on in %d of 50 plans; want some, not all", v, variants[v])
		}
	}
}

func TestPlanSetUpCreatesTheCastWithHistoryAndAnArchivedConversation(t *testing.T) {
	s := startTest(t, Options{Empty: true})
	p := NewPlan(7, 10)
	w, err := p.Setup(s)
	if err != nil {
		t.Fatal(err)
	}
	side := s.Conversations()
	for i, pc := range p.Conversations {
		if pc.Created {
			if w.IDs[i] != "" {
				t.Errorf("conversation %d exists before its create step", i)
			}
			continue
		}
		ms, err := s.Messages(w.IDs[i])
		if err != nil || len(ms) != pc.History {
			t.Errorf("conversation %d has %d messages (%v), want %d", i, len(ms), err, pc.History)
		}
	}
	last := side[len(side)-1]
	if !last.Archived || last.Participants[0] != "Ana María" {
		t.Errorf("the last conversation is %+v, want the archived one", last)
	}
	for _, c := range s.sidebarLocked() {
		if c.Archived {
			t.Errorf("the archived conversation is in the sidebar the page draws")
		}
	}
}

func TestBehaveRefusesUnknownKindsAndBadArguments(t *testing.T) {
	s := startTest(t, Options{})
	for _, b := range []Behaviour{
		{Kind: "explode"},
		{Kind: BehaveScrollBack, N: -1},
		{Kind: BehaveReinsert, MS: 600001},
		{Kind: BehaveOpenAt, Conversation: "nope"},
		{Kind: BehaveSearch, Query: strings.Repeat("x", 201)},
	} {
		if err := s.Behave(b); err == nil || errors.Is(err, ErrNoPage) {
			t.Errorf("Behave(%+v) = %v, want a refusal of the arguments", b, err)
		}
	}
	if err := s.Behave(Behaviour{Kind: BehaveJumpLive}); !errors.Is(err, ErrNoPage) {
		t.Errorf("Behave with no page = %v, want ErrNoPage", err)
	}
}
