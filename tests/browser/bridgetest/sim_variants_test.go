package bridgetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// TestSimStructureVariantsKeepEveryBridgeRule runs the bridge's core rules on the
// simulator's other page shapes (the whole suite can also run on any of them with
// -sim.variants): the baseline of a group with photos, a video row and a quote; a live row
// that is new exactly once and whose label arrives, however late; scroll-back rows that are
// history only; and, with the content variants, reactor lists with punctuated names and
// astral-plane text.
func TestSimStructureVariantsKeepEveryBridgeRule(t *testing.T) {
	sets := [][]sim.Variant{
		{sim.VariantNest1, sim.VariantLateSrc},
		{sim.VariantNest2, sim.VariantLateLabels},
		append([]sim.Variant{sim.VariantNestMixed, sim.VariantLateSrc, sim.VariantLateLabels}, sim.ContentVariants...),
	}
	for _, vs := range sets {
		var names []string
		for _, v := range vs {
			names = append(names, string(v))
		}
		t.Run(strings.Join(names, "+"), func(t *testing.T) {
			e := startSim(t, sim.Options{Variants: vs})
			fam := e.conv(sim.DemoFamily)

			// The group's baseline, completed by updates where the page is late.
			mark := e.mark()
			c := e.openConv(sim.DemoFamily)
			msgs := e.settled(mark, c, func(ms []protocol.Message) bool {
				n := 0
				for _, m := range ms {
					n += len(m.Images)
				}
				return n >= 2
			})
			if len(msgs) != 8 {
				t.Errorf("family baseline has %d messages, want 8: %s", len(msgs), dump(msgs))
			}
			photos := 0
			for _, m := range msgs {
				if len(m.Images) == 1 && strings.HasPrefix(m.Images[0].Src, "blob:") && m.Sender == "Dad" {
					photos++
				}
				if m.Unsupported && m.Sender != "Dad" {
					t.Errorf("video row from %q, want Dad", m.Sender)
				}
			}
			if photos != 2 {
				t.Errorf("%d photo rows from Dad with a blob image, want 2: %s", photos, dump(msgs))
			}
			if r := byText(msgs, "Where was this?"); r == nil || r.Quote == nil || r.Quote.Sender != "Dad" {
				t.Errorf("quoted reply: %s", dump(r))
			}

			// A live row: new exactly once, labelled eventually.
			m := e.mark()
			live := e.deliver(fam.ID, sim.Message{From: "Mom", Text: "Dinner at 6, clank?"})
			got := e.waitView(m, live.ID, "the live row labelled", func(msg protocol.Message) bool { return msg.LabelKind == "full" })
			if got.Sender != "Mom" || got.Direction != "in" || got.Text != "Dinner at 6, clank?" {
				t.Errorf("live row known as %s", dump(got))
			}
			next := e.deliver(fam.ID, sim.Message{From: "Dad", Text: "fence"})
			e.waitNew(m, "the next live row", func(msg protocol.Message) bool { return msg.ID == next.ID })
			// Once each; a row whose label comes sooner may be reported before an older one.
			var ids []string
			for _, msg := range e.newMessages(m) {
				ids = append(ids, msg.ID)
			}
			slices.Sort(ids)
			if want := []string{live.ID, next.ID}; !slices.Equal(ids, slices.Sorted(slices.Values(want))) {
				t.Errorf("new messages %v, want %v once each", ids, want)
			}

			// Scroll-back: history only, and a row after it is new.
			e.openConv(sim.DemoBookClub)
			m = e.mark()
			if err := e.ctl.LoadOlder(10); err != nil {
				t.Fatal(err)
			}
			testkit.Poll(minWait, func() (bool, string) { return len(e.historyIDs(m)) >= 10, "" })
			if n := len(e.historyIDs(m)); n != 10 {
				t.Errorf("scroll-back gave %d history rows, want 10; events: %s", n, summary(e.since(m)))
			}
			book := e.conv(sim.DemoBookClub)
			after := e.deliver(book.ID, sim.Message{From: "Ana", Text: "back to chapter 12"})
			e.waitNew(m, "the row after scroll-back", func(msg protocol.Message) bool { return msg.ID == after.ID })
			if ids := e.newMessages(m); len(ids) != 1 {
				t.Errorf("scroll-back then one arrival gave %d new messages, want 1", len(ids))
			}

			if !hasVariant(vs, sim.VariantManyReactors) {
				return
			}
			// Reactor lists with periods and a comma in names, and astral-plane text.
			mark = e.mark()
			c = e.openConv(sim.DemoTrivia)
			people := sim.TriviaPeople(hasVariant(vs, sim.VariantPunctuatedNames))
			msgs = e.settled(mark, c, func([]protocol.Message) bool { return true })
			q := byText(msgs, "Trivia night on Thursday: who's in?")
			if q == nil {
				t.Fatalf("no trivia question in %s", dump(msgs))
			}
			var rs []string
			for _, r := range q.Reactions {
				rs = append(rs, r.Reaction+":"+strings.Join(r.By, "+"))
			}
			want := fmt.Sprintf("love:%s+%s+%s+You;laugh:%s+%s", people[0], people[1], people[2], people[1], people[2])
			if strings.Join(rs, ";") != want {
				t.Errorf("reactions %q, want %q", strings.Join(rs, ";"), want)
			}
			if hasVariant(vs, sim.VariantAstral) {
				emoji := byText(msgs, sim.TriviaEmoji)
				if emoji == nil || emoji.TextTruncated || utf8.RuneCountInString(emoji.Text) != 3000 || emoji.Sender != people[1] {
					t.Errorf("the 3,000-emoji message did not arrive whole from %s", people[1])
				}
				if s := byText(msgs, sim.TriviaScores); s == nil || s.Sender != people[2] {
					t.Errorf("the astral-plane scores message did not arrive from %s", people[2])
				}
			}
		})
	}
}

func hasVariant(vs []sim.Variant, v sim.Variant) bool { return slices.Contains(vs, v) }
