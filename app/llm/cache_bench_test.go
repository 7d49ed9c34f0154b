package llm

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/fakellm"
)

// upstreamTokens is the o200k token count of the upstream extension's request for the
// reference conversation at history 50, as issue 17 states it; the upstream system prompt is
// not part of this repository, so it is a fixed figure rather than rebuilt here.
const upstreamTokens = 3438

// referenceLines is the fixed 60-message conversation the prompt-cache replay plays: sender,
// then text. "You" is the local user (Dana); "Clanker" is this app's own earlier replies;
// "img:" marks a photo with its alt text.
var referenceLines = []string{
	"Ann|Morning all! Has anyone looked at the cabin listings I sent last night?",
	"Bob|Only the first two. The one by the lake looks great but it's a long drive",
	"Cy|I liked the lake one too. How long is the drive from the city?",
	"Ann|About three and a half hours without traffic, so more like four on a Friday",
	"You|I can leave work early on Friday if that helps",
	"Bob|Same here, I can probably be out by 2",
	"Clanker|Leaving by 2 should get you there before dark, even with Friday traffic.",
	"Cy|Nice. What's the price split if all four of us go?",
	"Ann|It's 840 for three nights, so 210 each. Cleaning fee included",
	"Bob|That's fine for me",
	"Cy|img:the cabin's deck with a view over the lake at sunset",
	"Cy|This is the view from the deck apparently",
	"You|Wow, that's beautiful. I'm in",
	"Ann|Great, I'll book it tonight unless someone objects",
	"Bob|No objections. Who's driving?",
	"You|I can drive, my car fits four with luggage if we pack light",
	"Cy|I'll bring the cooler and the board games",
	"Ann|Clanker, any ideas for a short hike near Pine Lake?",
	"Clanker|The ridge trail on the north shore is about 5 km round trip with a great view back over the lake; it's an easy afternoon.",
	"Bob|Ridge trail sounds good. Is it dog friendly? I might bring Max",
	"Ann|I think dogs are allowed on leash there",
	"Cy|Max coming along makes this trip 100% better",
	"You|Agreed. Does the cabin allow pets though?",
	"Ann|Let me check the listing... yes, one dog allowed, 30 extra",
	"Bob|I'll cover the dog fee obviously",
	"Cy|What about food? Cook or eat out?",
	"You|Cook most nights I think, maybe one dinner out in town",
	"Ann|I can do my chili on the first night",
	"Bob|I'll do breakfast every morning, pancakes and eggs",
	"Cy|I'll handle Saturday dinner. Burgers on the grill?",
	"You|Perfect. I'll bring snacks and drinks",
	"Ann|Should we make a shopping list?",
	"Bob|Clanker, can you keep track of who brings what?",
	"Clanker|Sure: Ann makes chili on Friday, Bob does breakfasts, Cy grills burgers on Saturday, Dana brings snacks and drinks, and Cy brings the cooler and games.",
	"Cy|Legend",
	"Ann|Booked! Confirmation number is in my email, check-in from 4 pm",
	"You|Awesome, thanks Ann",
	"Bob|img:a golden retriever sitting in the back seat of a car",
	"Bob|Max already knows something is up",
	"Cy|Haha he's ready",
	"Ann|Weather looks mostly sunny, maybe rain on Sunday morning",
	"You|We can do the hike on Saturday then and keep Sunday lazy",
	"Bob|Works for me. Kayak rental on Sunday afternoon if it clears?",
	"Cy|There's a rental place by the marina, 25 an hour",
	"Ann|Let's decide on the day",
	"You|Does anyone have a spare sleeping bag? Mine has a broken zip",
	"Bob|I have two, you can borrow one",
	"You|Thanks Bob",
	"Cy|Clanker, what's a good card game for four people that isn't too long?",
	"Clanker|Try Sushi Go or Love Letter: both take about 20 minutes and are easy to learn after dinner.",
	"Ann|Love Letter is fun, I have it somewhere",
	"Bob|Bring it! Also, should we leave Friday at 2 from Dana's place?",
	"You|Yes, meet at mine at 1:45, I'll have the car packed",
	"Cy|I might be 10 minutes late, my meeting ends at 1:30",
	"Ann|We'll wait, no stress",
	"Bob|Clanker, remind us what time check-in is?",
	"Clanker|Check-in is from 4 pm, and Ann has the confirmation number in her email.",
	"Cy|Thanks! Getting excited now",
	"Ann|Me too. Last thing: who's bringing the speaker?",
	"You|I'll bring mine, it's waterproof too",
}

// referenceConversation returns the 60 messages as the engine holds them.
func referenceConversation() []engine.Message {
	out := make([]engine.Message, len(referenceLines))
	for i, line := range referenceLines {
		sender, text, _ := strings.Cut(line, "|")
		m := engine.Message{ID: fmt.Sprintf("msg-%02d", i), Sender: sender, Direction: engine.Incoming, Text: text}
		switch sender {
		case "You":
			m.Direction = engine.Outgoing
		case "Clanker":
			m.Sender, m.Direction, m.Text = "You", engine.Outgoing, "[clanker] "+text
		}
		if alt, ok := strings.CutPrefix(text, "img:"); ok {
			m.Text = ""
			m.Images = []engine.Image{{Src: fmt.Sprintf("blob:https://messages.google.com/%08x", i*7919), Alt: alt}}
		}
		out[i] = m
	}
	return out
}

// replayMemory is the conversation's memory as the store would hold it, updated from each
// reply the way the engine saves it.
type replayMemory struct {
	mu       sync.Mutex
	summary  string
	custom   string
	profiles map[string]string
}

func (m *replayMemory) LoadMemory(context.Context, engine.ConversationID) (engine.Memory, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return engine.Memory{Summary: m.summary, Customization: m.custom, Profiles: m.profiles}, nil
}

func (m *replayMemory) RecordUsage(context.Context, engine.Usage) error { return nil }

func (m *replayMemory) apply(u engine.ContextUpdate) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if u.Summary != nil {
		m.summary = *u.Summary
	}
	if u.CustomizationSet {
		m.custom = ""
		if u.Customization != nil {
			m.custom = *u.Customization
		}
	}
	if u.ProfilesSet {
		m.profiles = u.Profiles
	}
}

// replayReply is the fake model's answer to the i-th request (from 1): silence, with a new
// summary every sixth request and new profiles every fifteenth. The rate is an assumption of
// this benchmark, not a measurement of a real model; each update costs the cache what follows
// the memory.
func replayReply(i int) string {
	var fields []string
	fields = append(fields, `"response": null`)
	if i%6 == 0 {
		fields = append(fields, fmt.Sprintf(`"summary": "Ann, Bob, Cy and Dana are planning a three-night trip to a lake cabin (210 each, booked by Ann, check-in 4 pm). Dana drives from her place on Friday; Bob brings his dog Max. Meals are shared out. Update %d."`, i))
	}
	if i%15 == 0 {
		fields = append(fields, fmt.Sprintf(`"profiles": {"Ann": "organises the trip; makes chili", "Bob": "owns a golden retriever, Max; cooks breakfast", "Cy": "brings games and the cooler; update %d", "Dana": "drives; brings snacks and a speaker"}`, i))
	}
	return "{" + strings.Join(fields, ", ") + "}"
}

// replayResult is what one replay of the reference conversation measured.
type replayResult struct {
	bodies [][]byte
	tokens []int
}

// replay plays the reference conversation through the engine's history window, the adapter
// and the real client against the fake endpoint, one request per message, and returns the
// bodies posted for the requests whose window was full.
func replay(tb testing.TB, srv *fakellm.Server, enc tokenizer.Codec, historySize int) replayResult {
	tb.Helper()
	srv.Reset()
	msgs := referenceConversation()
	mem := &replayMemory{
		summary:  "Ann, Bob, Cy and Dana are planning a weekend away together.",
		custom:   "Keep replies short and warm.",
		profiles: map[string]string{"Ann": "organiser", "Bob": "has a dog", "Cy": "likes games"},
	}
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	adapter := &EngineAdapter{
		Config: func(string) (Config, error) {
			return Config{Endpoint: srv.BaseURL(), APIKey: "sk-replay", Model: "gpt-4o", HTTPClient: hc, Timeout: 30 * time.Second}, nil
		},
		Memory: mem,
		Usage:  mem,
	}
	var res replayResult
	var anchor engine.WindowAnchor
	for n := 1; n <= len(msgs); n++ {
		srv.Enqueue(fakellm.Reply{Content: replayReply(n)})
		start, settled, next := engine.HistoryWindow(msgs[:n], historySize, anchor)
		anchor = next
		hist := msgs[start:n]
		for i := range hist {
			hist[i].OwnClanker = hist[i].IsOwnClanker()
		}
		reply, err := adapter.Complete(context.Background(), engine.LLMRequest{
			Kind: engine.RequestReply, Conversation: "ref", UserName: "Dana",
			Participants: []string{"Ann", "Bob", "Cy", "Dana"},
			History:      hist, OlderCount: start, Settled: settled,
		})
		if err != nil {
			tb.Fatalf("request %d: %v", n, err)
		}
		mem.apply(reply.Update)
		reqs := srv.Requests()
		if len(reqs) != n {
			tb.Fatalf("request %d: the fake endpoint saw %d requests", n, len(reqs))
		}
		if n < historySize {
			continue
		}
		r := reqs[n-1]
		res.bodies = append(res.bodies, r.Body)
		res.tokens = append(res.tokens, chatTokens(tb, enc, r))
	}
	return res
}

// chatTokens counts a chat request's prompt as OpenAI bills it: the o200k tokens of each
// message's role and text, 3 tokens of framing per message and 3 to prime the reply.
func chatTokens(tb testing.TB, enc tokenizer.Codec, r fakellm.Request) int {
	tb.Helper()
	total := 3
	for _, m := range r.Messages {
		for _, s := range []string{m.Role, m.Text()} {
			n, err := enc.Count(s)
			if err != nil {
				tb.Fatal(err)
			}
			total += n
		}
		total += 3
	}
	return total
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// BenchmarkPromptCacheReplay replays the 60-message reference conversation at history 50,
// and at the default 20 for comparison (issue 17): one request per message through engine.HistoryWindow, the adapter and the real
// client; the fake endpoint captures each body. Over the requests whose window is full, it
// reports how much of each body is a byte-identical prefix of the previous one (mean and
// worst), the body size, and the prompt's o200k tokens against the upstream extension's (x-upstream-tokens is meaningful at history 50 only).
func BenchmarkPromptCacheReplay(b *testing.B) {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	srv, _ := fakellm.StartNew(fakellm.Config{APIKey: "sk-replay"})
	defer srv.Close()
	for _, size := range []int{50, 20} {
		b.Run(fmt.Sprintf("history=%d", size), func(b *testing.B) {
			var res replayResult
			for b.Loop() {
				res = replay(b, srv, enc, size)
			}
			reportReplay(b, res)
		})
	}
}

// reportReplay turns one replay's bodies and token counts into the benchmark's metrics.
func reportReplay(b *testing.B, res replayResult) {
	var sum, worst float64 = 0, 100
	for i := 1; i < len(res.bodies); i++ {
		share := 100 * float64(commonPrefix(res.bodies[i-1], res.bodies[i])) / float64(len(res.bodies[i]))
		sum += share
		worst = min(worst, share)
	}
	pairs := float64(len(res.bodies) - 1)
	var tokens, maxTokens, bytes int
	for i, body := range res.bodies {
		tokens += res.tokens[i]
		maxTokens = max(maxTokens, res.tokens[i])
		bytes += len(body)
	}
	reqs := float64(len(res.bodies))
	b.ReportMetric(sum/pairs, "shared-prefix-mean-%")
	b.ReportMetric(worst, "shared-prefix-worst-%")
	b.ReportMetric(float64(tokens)/reqs, "tokens/req")
	b.ReportMetric(float64(maxTokens), "tokens-max")
	b.ReportMetric(float64(tokens)/reqs/upstreamTokens, "x-upstream-tokens")
	b.ReportMetric(float64(bytes)/reqs, "body-bytes/req")
	b.ReportMetric(reqs, "full-window-requests")
}
