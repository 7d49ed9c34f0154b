package sim

import "fmt"

// Demo conversation names, in the order they are created (the last one is the most recent).
const (
	DemoBookClub  = "Book club"
	DemoShortCode = "72975"
	DemoPhone     = "(555) 555-7334"
	DemoBob       = "Bob"
	DemoJane      = "Jane Doe"
	DemoFamily    = "Dad, Mom"
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
}
