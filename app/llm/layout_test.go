package llm

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/enginefake"
	"github.com/clanker-desktop/clanker/tests/fakellm"
)

// The model sees at most the history size on a first request; the rest is counted as older.
func TestHistorySentToTheModelIsBoundedByHistorySize(t *testing.T) {
	srv := fakeServer(t)
	srv.Enqueue(fakellm.JSONReply("", ""))
	a := &EngineAdapter{Config: func(string) (Config, error) {
		return Config{Endpoint: srv.BaseURL(), APIKey: "sk-test-secret", Model: "gpt-4o"}, nil
	}, Memory: memoryOf("c", engine.Memory{Summary: "they talk"})}
	var msgs []engine.Message
	for i := range 31 {
		msgs = append(msgs, engine.Message{ID: fmt.Sprint(i), Sender: "Ann", Text: fmt.Sprintf("message %d", i)})
	}
	if _, err := a.Complete(context.Background(), engine.LLMRequest{Kind: engine.RequestReply, Conversation: "c", History: msgs, HistorySize: 10}); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	var shown []string
	for _, m := range r.Messages {
		if strings.HasPrefix(m.Text(), "Ann: ") {
			shown = append(shown, strings.TrimPrefix(m.Text(), "Ann: "))
		}
	}
	if len(shown) != 10 || shown[0] != "message 21" || shown[9] != "message 30" || !strings.Contains(r.Messages[1].Text(), "[21 older messages") {
		t.Fatalf("want messages 21 to 30 with 21 older, got %q and memory %q", shown, r.Messages[1].Text())
	}
}

// coverageModel answers from the prompt alone, as a model would: it knows the messages shown
// and what the memory shown says. Its summary lists every message it knows ("knows: m3 m4").
type coverageModel struct {
	summaryEvery int  // rewrite the summary every so many answers (0: only when told)
	atNotice     bool // rewrite it when told the messages shown are about to leave
	persona      func(i int) (string, bool)
}

var (
	coverageID      = regexp.MustCompile(`^[A-Za-z]+: (m\d+)\b`)
	coverageKnowsRE = regexp.MustCompile(`knows:((?: m\d+)*)`)
)

// read returns what a prompt shows: the messages (by ID), the IDs the summary lists, whether it
// carries the notice.
func readCoveragePrompt(p Prompt) (shown []string, summary map[string]bool, notice bool) {
	summary = map[string]bool{}
	for _, part := range p.Parts {
		switch {
		case strings.HasPrefix(part.Text, "[MEMORY - "):
			if m := coverageKnowsRE.FindStringSubmatch(part.Text); m != nil {
				for id := range strings.FieldsSeq(m[1]) {
					summary[id] = true
				}
			}
		case part.Text == leavingNotice:
			notice = true
		default:
			if m := coverageID.FindStringSubmatch(part.Text); m != nil && !slices.Contains(shown, m[1]) {
				shown = append(shown, m[1])
			}
		}
	}
	return shown, summary, notice
}

func (m coverageModel) answer(i int, shown []string, summary map[string]bool, notice bool) string {
	fields := []string{`"response": null`}
	if (m.summaryEvery > 0 && i%m.summaryEvery == 0) || (m.atNotice && notice) {
		known := map[string]bool{}
		for id := range summary {
			known[id] = true
		}
		for _, id := range shown {
			known[id] = true
		}
		ids := slices.Collect(func(yield func(string) bool) {
			for id := range known {
				if !yield(id) {
					return
				}
			}
		})
		num := func(id string) int { n, _ := strconv.Atoi(id[1:]); return n }
		slices.SortFunc(ids, func(a, b string) int { return num(a) - num(b) })
		fields = append(fields, `"summary": "knows: `+strings.Join(ids, " ")+`"`)
	}
	if m.persona != nil {
		if p, ok := m.persona(i); ok {
			fields = append(fields, `"customization": `+quoteJSON(p))
		}
	}
	return "{" + strings.Join(fields, ", ") + "}"
}

// coverageCase is one way a conversation goes: how many messages arrive before each request,
// which requests fail (no answer) and which answers the engine does not save.
type coverageCase struct {
	size    int
	gaps    func(i int) int
	length  int
	fails   func(i int) bool
	dropped func(i int) bool
	model   coverageModel
}

// playCoverage plays c.length messages through the layouts exactly as the adapter lays them out
// (plan, BuildPrompt, ParseReply, answered), with a store the answers update. check is called at
// every request with what the prompt shows and what the model has seen in answered requests
// before.
func playCoverage(t *testing.T, c coverageCase, check func(req int, shown []string, summary map[string]bool, known map[string]bool, toldBefore map[string]bool)) {
	t.Helper()
	var l layouts
	var mem engine.Memory
	var msgs []engine.Message
	known := map[string]bool{}      // shown in a request the model answered
	toldBefore := map[string]bool{} // the last answered request that showed it carried the notice
	never := func(int) bool { return false }
	if c.fails == nil {
		c.fails = never
	}
	if c.dropped == nil {
		c.dropped = never
	}
	for i := 1; len(msgs) < c.length; i++ {
		for range c.gaps(i) {
			msgs = append(msgs, engine.Message{ID: fmt.Sprintf("id%d", len(msgs)), Sender: "Ann", Text: fmt.Sprintf("m%d is a message", len(msgs))})
		}
		req := engine.LLMRequest{Kind: engine.RequestReply, Conversation: "c", UserName: "Dana", History: slices.Clone(msgs), HistorySize: c.size}
		plan := l.plan(req, mem)
		shown, summary, notice := readCoveragePrompt(BuildPrompt(plan.request(req)))
		check(i, shown, summary, known, toldBefore)
		if c.fails(i) {
			continue
		}
		reply, _, err := ParseReply(c.model.answer(i, shown, summary, notice))
		if err != nil {
			t.Fatal(err)
		}
		l.answered(req, plan, reply)
		if !c.dropped(i) {
			mem = applyUpdate(mem, reply.Update)
		}
		for _, id := range shown {
			known[id] = true
			toldBefore[id] = notice
		}
	}
}

var coverageSpacings = []struct {
	name   string
	gaps   func(i int) int
	length int
}{
	{"every message", func(int) int { return 1 }, 80},
	{"every 7", func(int) int { return 7 }, 150},
	{"10 to 20 apart", func(i int) int { return 10 + (i*7)%11 }, 150},
	{"with a burst", func(i int) int {
		if i == 6 {
			return 80
		}
		return 3
	}, 150},
}

// The brief's memory requirement (issue 32): a message the model has seen never leaves its view
// unless the summary it is shown covers it, whatever the spacing of the requests, when requests
// fail, when the engine does not save an answer, and when the persona changes.
func TestTheSummaryCoversEveryMessageThatLeavesTheView(t *testing.T) {
	for _, size := range []int{3, 10, 20} {
		for _, sp := range coverageSpacings {
			for _, trouble := range []string{"", "failures", "dropped updates"} {
				c := coverageCase{size: size, gaps: sp.gaps, length: sp.length, model: coverageModel{summaryEvery: 6, atNotice: true,
					persona: func(i int) (string, bool) { return fmt.Sprintf("persona %d", i), i%17 == 0 }}}
				switch trouble {
				case "failures":
					c.fails = func(i int) bool { return i%3 == 0 }
				case "dropped updates":
					c.dropped = func(i int) bool { return i%4 == 0 }
				}
				t.Run(fmt.Sprintf("size %d, %s, %s", size, sp.name, trouble), func(t *testing.T) {
					compactions := 0
					playCoverage(t, c, func(req int, shown []string, summary, known, _ map[string]bool) {
						for id := range known {
							if !slices.Contains(shown, id) && !summary[id] {
								t.Fatalf("request %d: %s was seen, is no longer shown, and the summary shown does not cover it", req, id)
							}
							if !slices.Contains(shown, id) {
								compactions++
							}
						}
					})
					if compactions == 0 {
						t.Fatal("the window never left anything out: the test proves nothing")
					}
				})
			}
		}
	}
}

// A model that never writes a summary still never loses a message silently: each one leaves its
// view only after a request that showed it and told the model it was about to go was answered.
func TestAMessageLeavesTheViewOnlyAfterTheModelWasTold(t *testing.T) {
	for _, sp := range coverageSpacings {
		t.Run(sp.name, func(t *testing.T) {
			left := 0
			playCoverage(t, coverageCase{size: 10, gaps: sp.gaps, length: sp.length, fails: func(i int) bool { return i%5 == 0 }},
				func(req int, shown []string, _, known, toldBefore map[string]bool) {
					for id := range known {
						if !slices.Contains(shown, id) {
							left++
							if !toldBefore[id] {
								t.Fatalf("request %d: %s left the view without the model being told first", req, id)
							}
						}
					}
				})
			if left == 0 {
				t.Fatal("nothing ever left the view: the test proves nothing")
			}
		})
	}
}

// A request that repeats its layout shares everything the previous request held, whatever
// happened in between, until the window is compacted; the memory shown stays as it was taken
// even when the model rewrote it, a persona change is a note appended where it happened, and a
// memory someone else changed is taken again.
func TestTheLayoutKeepsItsPrefixAndTakesTheMemoryOnlyWhenItMust(t *testing.T) {
	var l layouts
	mem := engine.Memory{Summary: "first summary"}
	var msgs []engine.Message
	add := func(n int) {
		for range n {
			msgs = append(msgs, engine.Message{ID: fmt.Sprint(len(msgs)), Sender: "Bob", Text: fmt.Sprintf("text %d", len(msgs))})
		}
	}
	ask := func(update string) Prompt {
		t.Helper()
		req := engine.LLMRequest{Kind: engine.RequestReply, Conversation: "c", History: slices.Clone(msgs), HistorySize: 20}
		plan := l.plan(req, mem)
		p := BuildPrompt(plan.request(req))
		reply, _, err := ParseReply(update)
		if err != nil {
			t.Fatal(err)
		}
		l.answered(req, plan, reply)
		mem = applyUpdate(mem, reply.Update)
		return p
	}
	repeats := func(before, after Prompt) bool {
		stable := Prompt{Parts: before.Parts[:before.Stable]}
		return commonPrefixBytes(stable, after) == stable.bytes()
	}
	add(12)
	p1 := ask(`{"response": null, "summary": "second summary"}`)
	add(6)
	p2 := ask(`{"response": null, "customization": "Speak like a pirate."}`)
	if !repeats(p1, p2) || !strings.Contains(p2.Parts[1].Text, "first summary") {
		t.Fatal("after a summary rewrite the next request must repeat the previous one and show the memory as it was taken")
	}
	add(1)
	p3 := ask(`{"response": null}`)
	if p3.Stable != len(p3.Parts) || !repeats(p2, p3) || !strings.Contains(p3.Parts[len(p3.Parts)-2].Text, "Speak like a pirate.") {
		t.Fatalf("a persona change must be a note after what the model had seen, keeping the prefix: %q", p3.Parts[len(p3.Parts)-2].Text)
	}
	mem.Summary = "the user's own summary" // edited in the settings window
	add(1)
	p4 := ask(`{"response": null}`)
	if !strings.Contains(p4.Parts[1].Text, "the user's own summary") || !strings.Contains(p4.Parts[1].Text, "Speak like a pirate.") {
		t.Fatalf("memory someone else changed must be taken again, got %q", p4.Parts[1].Text)
	}
	if commonPrefixBytes(p3, p4) < len(p3.canonical(1)) || len(p4.Parts) != len(p3.Parts) {
		t.Fatal("taking the memory again keeps the rules and the window")
	}
}

// An image follow-up repeats its first request's layout exactly; memory the model wrote while
// looking at the image is taken again at the next request (what it saw is in no message).
func TestAnImageFollowUpRepeatsTheLayoutAndItsMemoryIsShownNext(t *testing.T) {
	var l layouts
	mem := engine.Memory{Summary: "before"}
	msgs := []engine.Message{{ID: "1", Sender: "Ann", Text: "look", Images: []engine.Image{{Src: "blob:https://messages.google.com/a"}}}}
	req := engine.LLMRequest{Kind: engine.RequestReply, Conversation: "c", History: msgs, HistorySize: 20}
	first := l.plan(req, mem)
	l.answered(req, first, engine.Reply{RequestImage: "blob:https://messages.google.com/a"})
	follow := req
	follow.Image = &engine.ImageData{Src: "blob:https://messages.google.com/a", Data: []byte{1}}
	again := l.plan(follow, mem)
	if fmt.Sprint(again.shown) != fmt.Sprint(first.shown) || again.base.Summary != "before" {
		t.Fatal("the follow-up must repeat its first request's layout")
	}
	seen := "a red kite over the beach"
	l.answered(follow, again, engine.Reply{Update: engine.ContextUpdate{Summary: &seen}})
	mem.Summary = seen
	next := req
	next.History = append(slices.Clone(msgs), engine.Message{ID: "2", Sender: "Bob", Text: "nice"})
	if p := l.plan(next, mem); p.base.Summary != seen {
		t.Fatalf("the memory written while looking at the image must be shown next, got %q", p.base.Summary)
	}
}

// memoryOf is a store holding mem as conversation conv's memory.
func memoryOf(conv engine.ConversationID, mem engine.Memory) *enginefake.Store {
	st := enginefake.NewStore()
	st.SetMemory(conv, mem)
	return st
}
