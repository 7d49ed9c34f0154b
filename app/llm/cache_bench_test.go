package llm

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/enginefake"
	"github.com/clanker-desktop/clanker/tests/fakellm"
)

// replayScript is the conversation the prompt-cache replay plays
// (testdata/replay/conversation.txt): its messages as the engine holds them, with the local
// user's name in place, and the facts a summary written after each point would hold.
type replayScript struct {
	msgs  []engine.Message
	facts []replayFact
}

// replayFact is known to the model once it has seen the first after messages.
type replayFact struct {
	after int
	text  string
}

const replayLocal = "Dana"

var replayParticipants = []string{"Ann", "Bob", "Cy", replayLocal}

func loadReplayScript(tb testing.TB) replayScript {
	tb.Helper()
	raw, err := os.ReadFile("testdata/replay/conversation.txt")
	if err != nil {
		tb.Fatal(err)
	}
	var s replayScript
	for line := range strings.Lines(string(raw)) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" || strings.HasPrefix(line, "//"):
			continue
		case strings.HasPrefix(line, "@"):
			s.facts = append(s.facts, replayFact{after: len(s.msgs), text: strings.TrimPrefix(line, "@")})
			continue
		}
		sender, text, ok := strings.Cut(line, "|")
		if !ok {
			tb.Fatalf("replay script: %q is not sender|text", line)
		}
		i := len(s.msgs)
		m := engine.Message{ID: fmt.Sprintf("msg-%03d", i), Sender: sender, Direction: engine.Incoming, Text: text}
		switch sender {
		case "You":
			m.Sender, m.Direction = replayLocal, engine.Outgoing
		case "Clanker":
			m.Sender, m.Direction, m.Text, m.OwnClanker = replayLocal, engine.Outgoing, "[clanker] "+text, true
		}
		if alt, ok := strings.CutPrefix(text, "img:"); ok {
			m.Text = ""
			m.Images = []engine.Image{{Src: fmt.Sprintf("blob:https://messages.google.com/%08x-4e1c-9a70", i*7919), Alt: alt}}
		}
		s.msgs = append(s.msgs, m)
	}
	return s
}

// replayMode says at which messages the model is asked: Active asks at every message but
// Clanker's own, Available at those that mention Clanker.
type replayMode struct {
	name string
	asks func(engine.Message) bool
}

var mentionsClanker = regexp.MustCompile(`(?i)clank`)

var replayModes = []replayMode{
	{"active", func(m engine.Message) bool { return !m.OwnClanker }},
	{"available", func(m engine.Message) bool { return !m.OwnClanker && mentionsClanker.MatchString(m.Text) }},
}

// replayProfiles are the fake model's notes on each participant, each known from the message
// index given.
var replayProfiles = []struct {
	name, note string
	from       int
}{
	{"Ann", "organises the group's plans and books the places", 0},
	{"Bob", "owns a golden retriever called Max", 18},
	{"Cy", "brings the games and the cooler", 16},
	{"Dana", "the local user; drives the group in her car", 15},
	{"Ann", "makes a good chili", 26},
	{"Bob", "cooks breakfast, pancakes and eggs", 27},
	{"Cy", "hates coriander", 57},
	{"Dana", "off dairy for now", 60},
	{"Dana", "wins at Love Letter", 96},
	{"Bob", "likes to turn everything into a race", 140},
	{"Cy", "designer, starts a new job at a design studio", 176},
	{"Bob", "turns 35 on the 14th; loves steak and carrot cake", 190},
	{"Cy", "eating less meat", 200},
	{"Bob", "walks Max twice a day since the vet visit", 238},
	{"Ann", "wants a second trip to the lake in October", 278},
}

// replayAnswer is the fake model's answer to the i-th request (from 1), made after seeing the
// first seen messages: it stays silent and rewrites its summary every sixth request and its
// profiles every twelfth (an assumed rate, not a measured one), and takes the persona when
// asked for it and drops it when asked to. The summary holds the facts known so far, at most
// the latest twelve (a model condenses): about 170 o200k tokens after 60 messages, 430 to 470
// after 200.
func (s replayScript) replayAnswer(i, seen int) string {
	fields := []string{`"response": null`}
	if i%6 == 0 {
		var facts []string
		for _, f := range s.facts {
			if f.after <= seen {
				facts = append(facts, f.text)
			}
		}
		facts = facts[max(0, len(facts)-12):]
		sum := "Ann, Bob, Cy and Dana (the local user) are close friends who plan things together in this chat. " + strings.Join(facts, " ")
		fields = append(fields, `"summary": `+quoteJSON(sum))
	}
	if i%12 == 0 {
		notes := map[string][]string{}
		for _, p := range replayProfiles {
			if p.from < seen {
				notes[p.name] = append(notes[p.name], p.note)
			}
		}
		var ps []string
		for _, name := range replayParticipants {
			if len(notes[name]) > 0 {
				ps = append(ps, quoteJSON(name)+": "+quoteJSON(strings.Join(notes[name], "; ")))
			}
		}
		fields = append(fields, `"profiles": {`+strings.Join(ps, ", ")+`}`)
	}
	switch newest := s.msgs[seen-1].Text; {
	case strings.Contains(newest, "talk like a pirate"):
		fields = append(fields, `"customization": "Speak like a pirate."`)
	case strings.Contains(newest, "stop the pirate talk"):
		fields = append(fields, `"customization": null`)
	}
	return "{" + strings.Join(fields, ", ") + "}"
}

func quoteJSON(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// replayStart is the memory both sides start from.
var replayStart = engine.Memory{Summary: "Ann, Bob, Cy and Dana (the local user) are close friends who plan things together in this chat."}

// chatRequest is one request of a replay as the provider sees it: its messages, and which
// conversation messages it shows.
type chatRequest struct {
	msgs   []upstreamMessage
	newest int // index of the newest conversation message shown
}

// replayResult is one replay of a mode at a history size, for both layouts.
type replayResult struct {
	ours, upstream []chatRequest
	bodies         []int // our request bodies' sizes
}

// replay plays the script in mode at history size through the engine's view of the
// conversation (every message so far, as the engine holds them), the adapter and the real client
// against the fake endpoint, and rebuilds upstream's request for the same messages and memory.
func replay(tb testing.TB, srv *fakellm.Server, s replayScript, mode replayMode, size int) replayResult {
	tb.Helper()
	srv.Reset()
	mem := enginefake.NewStore() // the conversation's memory as the store holds it, updated from each reply
	mem.SetMemory("replay", replayStart)
	up := cloneMemory(replayStart)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	adapter := &EngineAdapter{
		Config: func(string) (Config, error) {
			return Config{Endpoint: srv.BaseURL(), APIKey: "sk-replay", Model: "gpt-4o", HTTPClient: hc, Timeout: 30 * time.Second}, nil
		},
		Memory: mem,
		Usage:  mem,
	}
	var res replayResult
	asked := 0
	for n := 1; n <= len(s.msgs); n++ {
		if !mode.asks(s.msgs[n-1]) {
			continue
		}
		asked++
		answer := s.replayAnswer(asked, n)
		res.upstream = append(res.upstream, chatRequest{msgs: upstreamRequest(s.msgs[:n], size, replayLocal, replayParticipants, up), newest: n - 1})

		srv.Enqueue(fakellm.Reply{Content: answer})
		reply, err := adapter.Complete(context.Background(), engine.LLMRequest{
			Kind: engine.RequestReply, Conversation: "replay", UserName: replayLocal, Participants: replayParticipants,
			History: s.msgs[:n], HistorySize: size,
		})
		if err != nil {
			tb.Fatalf("request %d: %v", asked, err)
		}
		if err := mem.ApplyContext("replay", reply.Update); err != nil {
			tb.Fatal(err)
		}
		parsed, _, err := ParseReply(answer)
		if err != nil {
			tb.Fatal(err)
		}
		up = applyUpdate(up, parsed.Update)

		reqs := srv.Requests()
		if len(reqs) != 1 {
			tb.Fatalf("request %d: the fake endpoint saw %d requests", asked, len(reqs))
		}
		srv.Reset()
		r := reqs[0]
		var msgs []upstreamMessage
		for _, m := range r.Messages {
			msgs = append(msgs, upstreamMessage{Role: m.Role, Text: m.Text()})
		}
		res.ours = append(res.ours, chatRequest{msgs: msgs, newest: n - 1})
		res.bodies = append(res.bodies, len(r.Body))
	}
	return res
}

// The replay's conversation is what the benchmark says it is: 300 messages, and in Available
// mode a request at each message that addresses Clanker, 10 to 20 messages apart, each answered
// by Clanker's next message.
func TestReplayScriptIsWhatTheBenchmarkSays(t *testing.T) {
	s := loadReplayScript(t)
	if len(s.msgs) != 300 || len(s.facts) < 15 {
		t.Fatalf("%d messages and %d facts; want 300 messages", len(s.msgs), len(s.facts))
	}
	last := -1
	for i, m := range s.msgs {
		if !replayModes[1].asks(m) {
			continue
		}
		if gap := i - last; gap < 10 || gap > 20 {
			t.Errorf("message %d addresses Clanker %d messages after the previous one", i, gap)
		}
		if !strings.HasPrefix(m.Text, "Clanker, ") && !strings.Contains(m.Text, ", Clanker") && !strings.Contains(m.Text, "Clanker,") {
			t.Errorf("message %d mentions Clanker without addressing it: %q", i, m.Text)
		}
		if i+1 >= len(s.msgs) || !s.msgs[i+1].OwnClanker {
			t.Errorf("message %d is not answered by Clanker's next message", i)
		}
		last = i
	}
}

// BenchmarkPromptCacheReplay replays the 300-message conversation of testdata/replay in Active
// mode (a request at every message but Clanker's own) and in Available mode (a request at each
// message that addresses Clanker, 11 to 18 messages apart), at the default history size of 20
// and at 50, through the adapter and the real client against a fake endpoint that captures each
// body; the fake model rewrites its summary every sixth request (issue 32). Beside each figure
// is the same measure of upstream's request for the same messages and memory, rebuilt from the
// behaviour reference (upstream_rebuild_test.go). See replayStats for the metrics.
func BenchmarkPromptCacheReplay(b *testing.B) {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	script := loadReplayScript(b)
	srv, _ := fakellm.StartNew(fakellm.Config{APIKey: "sk-replay"})
	defer srv.Close()
	for _, mode := range replayModes {
		b.Run(mode.name, func(b *testing.B) {
			for _, size := range []int{20, 50} {
				b.Run(fmt.Sprintf("history=%d", size), func(b *testing.B) {
					var res replayResult
					for b.Loop() {
						res = replay(b, srv, script, mode, size)
					}
					reportReplay(b, enc, res, len(script.msgs))
				})
			}
		})
	}
}

// replayStats measures one layout's requests over a replay. Tokens are o200k tokens as OpenAI
// counts a chat request (role and text of each message, 3 tokens of framing per message and 3
// to prime the reply). A request's prefix is what it shares with the previous request: whole
// identical messages and, in the first message that differs, the common start of its text (less
// a token for the split). cached is what OpenAI's prompt cache serves of that prefix: nothing
// below 1,024 tokens, then 1,024 and every further full 128 tokens. fresh counts the tokens of
// conversation messages the previous request did not show: new to the model, so no layout could
// have had them cached. The cache measures count pairs of consecutive requests (the first
// request has nothing before it); the token counts count every request.
type replayStats struct {
	requests, tokens, maxTokens, shown int
	// over the requests that have one before them
	pairTokens, cached, fresh int
	// re-bases: requests that share none of the previous request's conversation messages
	rebases, minGap int
}

func measureReplay(tb testing.TB, enc tokenizer.Codec, reqs []chatRequest, conversationLength int) replayStats {
	count := func(m upstreamMessage) int {
		r, err := enc.Count(m.Role)
		if err != nil {
			tb.Fatal(err)
		}
		t, err := enc.Count(m.Text)
		if err != nil {
			tb.Fatal(err)
		}
		return r + t + 3
	}
	st := replayStats{minGap: conversationLength}
	lastLayout := 0
	for i, r := range reqs {
		total := 3
		for _, m := range r.msgs {
			total += count(m)
			if isConversationMessage(m) {
				st.shown++
			}
		}
		st.requests++
		st.tokens += total
		st.maxTokens = max(st.maxTokens, total)
		if i == 0 {
			lastLayout = r.newest
			continue
		}
		prev := reqs[i-1]
		st.pairTokens += total

		prefix, whole := 0, 0
		for whole < min(len(prev.msgs), len(r.msgs)) && prev.msgs[whole] == r.msgs[whole] {
			prefix += count(r.msgs[whole])
			whole++
		}
		if whole < min(len(prev.msgs), len(r.msgs)) && prev.msgs[whole].Role == r.msgs[whole].Role {
			a, c := prev.msgs[whole].Text, r.msgs[whole].Text
			k := 0
			for k < min(len(a), len(c)) && a[k] == c[k] {
				k++
			}
			role, _ := enc.Count(r.msgs[whole].Role)
			part, _ := enc.Count(c[:k])
			prefix += 2 + role + max(0, part-1)
		}
		if prefix >= 1024 {
			st.cached += 1024 + (prefix-1024)/128*128
		}

		shownBefore := map[upstreamMessage]bool{}
		for _, m := range prev.msgs {
			shownBefore[m] = true
		}
		firstConversation := len(prev.msgs)
		for j, m := range prev.msgs {
			if isConversationMessage(m) {
				firstConversation = j
				break
			}
		}
		for _, m := range r.msgs {
			if isConversationMessage(m) && !shownBefore[m] {
				st.fresh += count(m)
			}
		}
		if whole <= firstConversation {
			st.rebases++
			st.minGap = min(st.minGap, r.newest-lastLayout)
			lastLayout = r.newest
		}
	}
	return st
}

// isConversationMessage tells the parts showing conversation messages from the rules, the memory
// and the app's notes: those are the system role or start with a bracketed heading (a
// participant's text always follows their name).
func isConversationMessage(m upstreamMessage) bool {
	return m.Role != "system" && !strings.HasPrefix(m.Text, "[")
}

// reportReplay turns one replay into the benchmark's metrics (see replayStats), ours and the
// rebuilt upstream's for the same requests. reuse-% is cached over the tokens that are not fresh
// (what was sent before and could have been served from the cache: the target's measure),
// cached-% cached over all tokens (what the bill sees; at most 100 - fresh-%, whatever the
// layout); x-upstream-tokens is our tokens over upstream's, summed over the same requests;
// rebases counts requests that share none of the previous one's conversation messages and
// rebase-min-gap is the fewest messages between two layouts (counting the first); shown/req is
// how many conversation messages (a photo with text counts twice) a request shows on average.
func reportReplay(b *testing.B, enc tokenizer.Codec, res replayResult, conversationLength int) {
	ours := measureReplay(b, enc, res.ours, conversationLength)
	up := measureReplay(b, enc, res.upstream, conversationLength)
	reqs := float64(ours.requests)
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
	bytes := 0
	for _, n := range res.bodies {
		bytes += n
	}
	b.ReportMetric(reqs, "requests")
	b.ReportMetric(pct(ours.cached, ours.pairTokens-ours.fresh), "reuse-%")
	b.ReportMetric(pct(ours.cached, ours.pairTokens), "cached-%")
	b.ReportMetric(pct(ours.fresh, ours.pairTokens), "fresh-%")
	b.ReportMetric(pct(up.cached, up.pairTokens-up.fresh), "upstream-reuse-%")
	b.ReportMetric(pct(up.cached, up.pairTokens), "upstream-cached-%")
	b.ReportMetric(float64(ours.tokens)/reqs, "tokens/req")
	b.ReportMetric(float64(up.tokens)/reqs, "upstream-tokens/req")
	b.ReportMetric(float64(ours.tokens)/float64(up.tokens), "x-upstream-tokens")
	b.ReportMetric(float64(ours.maxTokens), "tokens-max")
	b.ReportMetric(float64(ours.shown)/reqs, "shown/req")
	b.ReportMetric(float64(up.shown)/reqs, "upstream-shown/req")
	b.ReportMetric(float64(ours.rebases), "rebases")
	b.ReportMetric(float64(ours.minGap), "rebase-min-gap")
	b.ReportMetric(float64(bytes)/reqs, "body-bytes/req")
}
