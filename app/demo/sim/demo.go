package sim

import (
	"fmt"
	"strings"
)

// Demo conversation names, in the order they are created (the last one is the most recent).
const (
	DemoBookClub  = "Book club"
	DemoShortCode = "72975"
	DemoPhone     = "(555) 555-7334"
	DemoBob       = "Bob"
	DemoJane      = "Jane Doe"
	DemoFamily    = "Dad, Mom"
	// DemoTrivia is the group the content variants add (VariantPunctuatedNames,
	// VariantManyReactors, VariantAstral); it is not there otherwise.
	DemoTrivia = "Trivia night"
	// DemoBookClubSize is how many rows the long conversation has: more than the DOM window.
	DemoBookClubSize = 60
)

// loadDemo fills the simulator with realistic conversations covering every kind of row the
// bridge reads (text, images, tombstones, quoted replies, reactions, other Clankers, automated
// senders). It panics on a mistake because the content is fixed.
func loadDemo(s *Server) {
	must := func(m *Message, err error) *Message {
		if err != nil {
			panic("sim demo content: " + err.Error())
		}
		return m
	}
	conv := func(nc NewConversation) string {
		c, err := s.createLocked(nc)
		if err != nil {
			panic("sim demo content: " + err.Error())
		}
		return c.ID
	}
	in := func(c, from, text string) *Message {
		return must(s.addLocked(c, Message{From: from, Text: text}, false))
	}
	out := func(c, text, status string) *Message {
		return must(s.addLocked(c, Message{Text: text, Status: status}, true))
	}

	// A long, pinned, muted group: more rows than the window, for windowing and scroll-back.
	book := conv(NewConversation{Name: DemoBookClub, Participants: []string{"Ana", "Priya", "Tom"}, Pinned: true, Muted: true})
	people := []string{"Ana", "Priya", "Tom"}
	for i := 1; i <= DemoBookClubSize; i++ {
		if i%7 == 0 {
			out(book, fmt.Sprintf("Book club message %d: I'm on chapter %d", i, i/7+3), "Read")
			continue
		}
		in(book, people[i%3], fmt.Sprintf("Book club message %d: thoughts on chapter %d?", i, i/7+3))
	}

	// An automated short-code sender (A2P): the name and the header are all digits.
	code := conv(NewConversation{Participants: []string{DemoShortCode}})
	in(code, DemoShortCode, "Your Contoso verification code is 482913. Don't share it with anyone.")
	in(code, DemoShortCode, "Contoso: your parcel arrives today between 2 and 4 PM. Reply STOP to opt out.")

	// A 1:1 with an unsaved number: the sender is the formatted phone number.
	phone := conv(NewConversation{Participants: []string{DemoPhone}})
	in(phone, DemoPhone, "hey, is this the right number for the bake sale?")
	must(s.addLocked(phone, Message{From: DemoPhone, Text: "ok thanks", TimeOnlyLabel: true}, false))
	in(phone, DemoPhone, "hi clank, are you the bot my sister mentioned?")

	// Another user's Clanker writes into a chat: a human message as far as this instance goes.
	bob := conv(NewConversation{Participants: []string{DemoBob}, RCS: true})
	in(bob, DemoBob, "Movie night Friday?")
	out(bob, "Maybe! Which movie?", "Read")
	in(bob, DemoBob, "[clanker] Bob's bot here. Bob is thinking of a comedy.")

	// Label edge cases, images of every kind and a reaction on an own [clanker] message.
	jane := conv(NewConversation{Participants: []string{DemoJane}, RCS: true})
	in(jane, DemoJane, "Anyone up for tacos?")
	tacos := out(jane, "[clanker] Sure, tacos sound great.", "Read")
	must(s.addLocked(jane, Message{Reaction: &Reaction{Target: tacos.ID, From: DemoJane, Kind: "laugh"}}, false))
	must(s.addLocked(jane, Message{From: DemoJane, Text: "Here's the spending chart", Image: MediaChart}, false))
	must(s.addLocked(jane, Message{From: DemoJane, Image: MediaGIF}, false))
	in(jane, DemoJane, "Shopping list:\n- tortillas\n- limes\n- cilantro")
	in(jane, DemoJane, "The receipt says. Received on Tuesday, weird")
	in(jane, DemoJane, "See you at 7.")

	// The family group: photo with EXIF orientation, tombstone, video, quoted reply, reactions.
	fam := conv(NewConversation{Participants: []string{"Dad", "Mom"}})
	in(fam, "Mom", "Are you coming for dinner Sunday?")
	view := must(s.addLocked(fam, Message{From: "Dad", Text: "Look at the view from the hike!", Image: MediaPhoto}, false))
	must(s.addLocked(fam, Message{From: "Dad", Image: MediaPhoto}, false))
	out(fam, "Wow, beautiful!", "Delivered")
	must(s.addLocked(fam, Message{From: "Mom", Tombstone: true}, false))
	must(s.addLocked(fam, Message{From: "Dad", Attachment: AttachmentVideo}, false))
	must(s.addLocked(fam, Message{From: "Mom", Text: "Where was this?", ReplyTo: view.ID}, false))
	sweet := out(fam, "[clanker] Sweet, see you then", "SMS")
	must(s.addLocked(fam, Message{Reaction: &Reaction{Target: sweet.ID, From: "Mom", Kind: "love"}}, false))
	in(fam, "Dad", "Laughed at \u201cSweet, see you then\u201d")

	// Demo content is history: nothing starts unread except what arrives later.
	for _, c := range s.convs {
		c.Unread = false
	}
	s.convs[len(s.convs)-3].Unread = true // Bob's bot message is new

	if s.hasVariant(VariantPunctuatedNames) || s.hasVariant(VariantManyReactors) || s.hasVariant(VariantAstral) {
		loadTrivia(s, must)
	}
}

// TriviaPeople are the trivia group's members: with VariantPunctuatedNames names whose
// periods and comma the label grammar must not split on, else plain ones.
func TriviaPeople(punctuated bool) []string {
	if punctuated {
		return []string{"Dr. Alice Chen", "Smith, Jane", "J. R. Okafor"}
	}
	return []string{"Ann", "Ben", "Cy"}
}

// TriviaEmoji is the 3,000-emoji message VariantAstral adds (6,000 UTF-16 units, within the
// bridge's 4,000 code point limit); TriviaScores is its mixed astral-plane message.
var (
	TriviaEmoji  = strings.Repeat("\U0001F600", 3000)
	TriviaScores = "Scores: \U0001D7D9\U0001D7DA\U0001D7DB \U0001F3C6 \U00013000 and \U0001D4D0\U0001D4F5\U0001D4F2\U0001D4EC\U0001D4EE wins"
)

// loadTrivia adds the content variants' group. It is created last but sorts last in the
// sidebar (least recent), so the other conversations keep their ids, times and order.
func loadTrivia(s *Server, must func(*Message, error) *Message) {
	people := TriviaPeople(s.hasVariant(VariantPunctuatedNames))
	c, err := s.createLocked(NewConversation{Name: DemoTrivia, Participants: people})
	if err != nil {
		panic("sim demo content: " + err.Error())
	}
	in := func(from, text string) *Message {
		return must(s.addLocked(c.ID, Message{From: from, Text: text}, false))
	}
	q := in(people[0], "Trivia night on Thursday: who's in?")
	in(people[1], "Count me in, "+people[0]+".")
	in(people[2], "Me too. I'll bring snacks.")
	if s.hasVariant(VariantManyReactors) {
		for _, r := range []Reaction{{From: people[0], Kind: "love"}, {From: people[1], Kind: "love"}, {From: people[2], Kind: "love"},
			{From: "You", Kind: "love"}, {From: people[1], Kind: "laugh"}, {From: people[2], Kind: "laugh"}} {
			must(s.addLocked(c.ID, Message{Reaction: &Reaction{Target: q.ID, From: r.From, Kind: r.Kind}}, false))
		}
	}
	if s.hasVariant(VariantAstral) {
		in(people[1], TriviaEmoji)
		in(people[2], TriviaScores)
	}
	c.activity = 0
	c.Unread = false
}
