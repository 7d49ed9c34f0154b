package sim

import (
	"bytes"
	"fmt"
	"image"
	_ "image/gif"
	_ "image/jpeg"
	_ "image/png"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func startTest(t *testing.T, o Options) *Server {
	t.Helper()
	o.Logger = quiet()
	s, err := Start(o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestTextLabelsFollowTheAriaLabelGrammar(t *testing.T) {
	at := time.Date(2026, 2, 3, 18, 41, 0, 0, time.UTC)
	cases := []struct {
		name string
		m    Message
		want string
	}{
		{"incoming", Message{From: "Jane Doe", Text: "Anyone up for tacos?", Time: at},
			"Jane Doe said: Anyone up for tacos?. Received on February 3, 2026 at 6:41 PM."},
		{"own clanker with status and reaction", Message{Outgoing: true, Text: "[clanker] Sure, tacos sound great.", Status: "Read",
			Reactions: []Reaction{{From: "Jane Doe", Kind: "laugh"}}, Time: at},
			"You said: [clanker] Sure, tacos sound great.. Sent on February 3, 2026 at 6:41 PM. Read. Jane Doe reacted with laugh."},
		{"reactions grouped by kind", Message{From: "(555) 555-7334", Text: "hi clank", Time: at,
			Reactions: []Reaction{{From: "You", Kind: "laugh"}, {From: "(555) 555-7334", Kind: "laugh"}, {From: "Mom", Kind: "love"}}},
			"(555) 555-7334 said: hi clank. Received on February 3, 2026 at 6:41 PM. You and (555) 555-7334 reacted with laugh. Mom reacted with love."},
		{"three or more reactors", Message{From: "Ann", Text: "quiz", Time: at,
			Reactions: []Reaction{{From: "Dr. Alice Chen", Kind: "love"}, {From: "Smith, Jane", Kind: "love"}, {From: "You", Kind: "love"}}},
			"Ann said: quiz. Received on February 3, 2026 at 6:41 PM. Dr. Alice Chen, Smith, Jane and You reacted with love."},
		{"time only", Message{From: "Bob", Text: "ok", TimeOnlyLabel: true, Time: at.Add(-3*time.Hour - 45*time.Minute)},
			"Bob said: ok. Received at 2:56 PM."},
		{"multi-line", Message{From: "Jane Doe", Text: "a\nb", Time: at},
			"Jane Doe said: a\nb. Received on February 3, 2026 at 6:41 PM."},
		{"tombstone has no label", Message{From: "Mom", Text: "gone", Tombstone: true, Time: at}, ""},
	}
	for _, c := range cases {
		if got := c.m.TextLabel(); got != c.want {
			t.Errorf("%s: TextLabel = %q, want %q", c.name, got, c.want)
		}
	}
	img := Message{From: "Dad", Image: MediaPhoto, Status: "Delivered", Time: at}
	if got, want := img.ImageLabel(), "Dad sent an image. Received on February 3, 2026 at 6:41 PM. Delivered."; got != want {
		t.Errorf("ImageLabel = %q, want %q", got, want)
	}
}

func TestSnippetsPrefixYouForOutgoingAndTheSenderInGroups(t *testing.T) {
	cases := []struct {
		m     Message
		group bool
		want  string
	}{
		{Message{Outgoing: true, Text: "[clanker] hi"}, false, "You: [clanker] hi"},
		{Message{From: "Mom", Text: "dinner?"}, true, "Mom: dinner?"},
		{Message{From: "Jane Doe", Text: "tacos"}, false, "tacos"},
		{Message{From: "Dad", Image: MediaPhoto}, true, "Dad: Photo"},
	}
	for _, c := range cases {
		if got := c.m.Snippet(c.group); got != c.want {
			t.Errorf("Snippet(%+v) = %q, want %q", c.m, got, c.want)
		}
	}
}

func TestSameSeedGivesSameIDsAndDifferentSeedDifferentOnes(t *testing.T) {
	a := startTest(t, Options{Seed: 7})
	b := startTest(t, Options{Seed: 7})
	c := startTest(t, Options{Seed: 8})
	ca, cb, cc := a.Conversations(), b.Conversations(), c.Conversations()
	if ca[0].ID != cb[0].ID {
		t.Errorf("seed 7 twice gave conversation ids %q and %q, want equal", ca[0].ID, cb[0].ID)
	}
	if ca[0].ID == cc[0].ID {
		t.Errorf("seeds 7 and 8 both gave id %q, want different", ca[0].ID)
	}
	if !regexp.MustCompile(`^Cg[A-Za-z0-9_-]{17}$`).MatchString(ca[0].ID) {
		t.Errorf("conversation id %q is not base64-like Cg+17", ca[0].ID)
	}
}

func TestDeliverAppendsAReceivedMessageAndMarksABackgroundConversationUnread(t *testing.T) {
	s := startTest(t, Options{Empty: true})
	conv, err := s.CreateConversation(NewConversation{Participants: []string{"Dad", "Mom"}})
	if err != nil {
		t.Fatal(err)
	}
	if conv.Name != "Dad, Mom" {
		t.Errorf("group name = %q, want %q", conv.Name, "Dad, Mom")
	}
	m, err := s.Deliver(conv.ID, Message{From: "Mom", Text: "hi clank"})
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{4}=[A-Za-z0-9_-]{19}$`).MatchString(m.ID) {
		t.Errorf("incoming id %q is not base64-like", m.ID)
	}
	if want := "Mom said: hi clank. Received on February 3, 2026 at 6:41 PM."; m.TextLabel() != want {
		t.Errorf("label = %q, want %q", m.TextLabel(), want)
	}
	m2, _ := s.Deliver(conv.ID, Message{From: "Dad", Text: "second"})
	if d := m2.Time.Sub(m.Time); d != time.Minute {
		t.Errorf("clock advanced %v between messages, want 1m", d)
	}
	if m.LabelDelayMS < 100 || m.LabelDelayMS > 300 {
		t.Errorf("label delay %d ms, want 100..300", m.LabelDelayMS)
	}
	cs := s.Conversations()
	if !cs[0].Unread || cs[0].Snippet != "Dad: second" {
		t.Errorf("sidebar entry = %+v, want unread with snippet %q", cs[0], "Dad: second")
	}
}

func TestReactionUpdatesTheTargetInsteadOfAddingARow(t *testing.T) {
	s := startTest(t, Options{Empty: true})
	conv, _ := s.CreateConversation(NewConversation{Participants: []string{"Jane Doe"}})
	m, _ := s.Deliver(conv.ID, Message{From: "Jane Doe", Text: "tacos?"})
	got, err := s.Deliver(conv.ID, Message{Reaction: &Reaction{Target: m.ID, From: "Jane Doe", Kind: "love"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got.TextLabel(), " Jane Doe reacted with love.") {
		t.Errorf("label after reaction = %q, want the reaction sentence at the end", got.TextLabel())
	}
	ms, _ := s.Messages(conv.ID)
	if len(ms) != 1 {
		t.Errorf("rows after a reaction = %d, want 1", len(ms))
	}
}

func TestResetRestoresTheSameDemoContentAndClearsLogs(t *testing.T) {
	s := startTest(t, Options{})
	before := s.Conversations()
	fam := conversationNamed(t, s, DemoFamily)
	if _, err := s.Deliver(fam.ID, Message{From: "Mom", Text: "extra"}); err != nil {
		t.Fatal(err)
	}
	s.Reset()
	after := s.Conversations()
	if len(before) != len(after) || before[0].ID != after[0].ID || before[1].Snippet != after[1].Snippet {
		t.Errorf("after reset sidebar = %+v, want the start state %+v", after, before)
	}
	ms, _ := s.Messages(fam.ID)
	for _, m := range ms {
		if m.Text == "extra" {
			t.Errorf("delivered message survived reset")
		}
	}
}

func TestDemoContentCoversTheFixtureChecklist(t *testing.T) {
	s := startTest(t, Options{})
	cs := s.Conversations()
	names := map[string]Conversation{}
	for _, c := range cs {
		names[c.Name] = c
	}
	for _, n := range []string{DemoBookClub, DemoShortCode, DemoPhone, DemoBob, DemoJane, DemoFamily} {
		if _, ok := names[n]; !ok {
			t.Errorf("demo lacks conversation %q", n)
		}
	}
	if cs[0].Name != DemoBookClub || !cs[0].Pinned {
		t.Errorf("first sidebar item = %+v, want the pinned %q", cs[0], DemoBookClub)
	}
	book, _ := s.Messages(names[DemoBookClub].ID)
	if len(book) != DemoBookClubSize {
		t.Errorf("book club has %d rows, want %d", len(book), DemoBookClubSize)
	}
	fam, _ := s.Messages(names[DemoFamily].ID)
	var tomb, video, reply, photo bool
	for _, m := range fam {
		tomb = tomb || m.Tombstone
		video = video || m.Attachment == AttachmentVideo
		reply = reply || m.ReplyTo != ""
		photo = photo || m.Image == MediaPhoto
	}
	if !tomb || !video || !reply || !photo {
		t.Errorf("family rows: tombstone %v, video %v, reply %v, photo %v; want all", tomb, video, reply, photo)
	}
}

func TestMediaAreRealImagesAndThePhotoCarriesEXIFOrientation6(t *testing.T) {
	s := startTest(t, Options{Empty: true})
	want := map[string][2]int{MediaPhoto: {PhotoWidth, PhotoHeight}, MediaChart: {300, 200}, MediaGIF: {96, 64}}
	for name, dim := range want {
		resp, err := http.Get(s.URL() + "/__sim/media/" + name)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s: decode: %v", name, err)
			continue
		}
		if cfg.Width != dim[0] || cfg.Height != dim[1] {
			t.Errorf("%s (%s) is %dx%d, want %dx%d", name, format, cfg.Width, cfg.Height, dim[0], dim[1])
		}
		if !bytes.Equal(b, mediaBytes(name)) {
			t.Errorf("%s served bytes differ from mediaBytes", name)
		}
	}
	if o := EXIFOrientation(mediaBytes(MediaPhoto)); o != PhotoOrientation {
		t.Errorf("photo EXIF orientation = %d, want %d", o, PhotoOrientation)
	}
	if _, _, err := image.Decode(bytes.NewReader(mediaBytes(MediaPhoto))); err != nil {
		t.Errorf("photo with the inserted APP1 segment does not decode: %v", err)
	}
}

func TestTheSimulatorRefusesNonLoopbackClients(t *testing.T) {
	h := loopbackOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	for addr, want := range map[string]int{"127.0.0.1:5000": 204, "[::1]:5000": 204, "192.168.1.20:5000": 403} {
		r, _ := http.NewRequest("GET", "/__sim/status", nil)
		r.RemoteAddr = addr
		rec := &recorder{h: http.Header{}}
		h.ServeHTTP(rec, r)
		if rec.code != want {
			t.Errorf("client %s: status %d, want %d", addr, rec.code, want)
		}
	}
}

type recorder struct {
	h    http.Header
	code int
}

func (r *recorder) Header() http.Header         { return r.h }
func (r *recorder) Write(b []byte) (int, error) { return len(b), nil }
func (r *recorder) WriteHeader(c int)           { r.code = c }

func conversationNamed(t *testing.T, s *Server, name string) Conversation {
	t.Helper()
	for _, c := range s.Conversations() {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no conversation named %q", name)
	return Conversation{}
}

// Structure variants draw each row's shape from the seed and the row id: the same seed gives
// the same page, every number is within its documented range, and all values occur.
func TestRowShapesAreSeededAndWithinTheirRanges(t *testing.T) {
	depths := map[int]int{}
	for i := 0; i < 300; i++ {
		id := "row-" + strconv.Itoa(i)
		sh := shapeOf(7, id)
		if sh != shapeOf(7, id) {
			t.Fatalf("shape of %s differs between two draws with the same seed", id)
		}
		if sh.Depth < 0 || sh.Depth > 2 || sh.SrcDelayMS < 200 || sh.SrcDelayMS > 1500 || sh.LateLabelMS < 1000 || sh.LateLabelMS > 5000 {
			t.Fatalf("shape %+v of %s outside depth 0-2, src delay 200-1500 ms, label delay 1-5 s", sh, id)
		}
		depths[sh.Depth]++
	}
	if len(depths) != 3 {
		t.Errorf("depths drawn over 300 rows: %v, want 0, 1 and 2 all used", depths)
	}
	if shapeOf(7, "row-1") == shapeOf(8, "row-1") && shapeOf(7, "row-2") == shapeOf(8, "row-2") {
		t.Error("another seed draws the same shapes")
	}
}

// The default page keeps its ids and content whatever structure variant is used, and the
// content variants only add the trivia group, last in the sidebar.
func TestVariantsKeepTheDefaultContentAndAddOnlyTheTriviaGroup(t *testing.T) {
	base := startTest(t, Options{Seed: 3})
	shaped := startTest(t, Options{Seed: 3, Variants: StructureVariants})
	content := startTest(t, Options{Seed: 3, Variants: append([]Variant{VariantPunctuatedNames, VariantManyReactors, VariantAstral}, StructureVariants...)})
	bc, sc, cc := base.Conversations(), shaped.Conversations(), content.Conversations()
	if len(sc) != len(bc) || len(cc) != len(bc)+1 {
		t.Fatalf("conversations: default %d, structure variants %d, content variants %d; want equal, equal, one more", len(bc), len(sc), len(cc))
	}
	for i := range bc {
		if sc[i].ID != bc[i].ID || cc[i].ID != bc[i].ID || sc[i].Snippet != bc[i].Snippet || cc[i].Snippet != bc[i].Snippet {
			t.Errorf("conversation %d: %s/%s/%s, want the default's id and snippet in every variant", i, bc[i].ID, sc[i].ID, cc[i].ID)
		}
	}
	tri := cc[len(cc)-1]
	if tri.Name != DemoTrivia || strings.Join(tri.Participants, "|") != "Dr. Alice Chen|Smith, Jane|J. R. Okafor" {
		t.Fatalf("last conversation %+v, want the trivia group with the punctuated names", tri)
	}
	msgs, err := content.Messages(tri.ID)
	if err != nil {
		t.Fatal(err)
	}
	labels := ""
	for _, m := range msgs {
		labels += m.TextLabel() + "\n"
	}
	for _, want := range []string{
		"Dr. Alice Chen said: Trivia night on Thursday: who's in?. Received on",
		"Dr. Alice Chen, Smith, Jane, J. R. Okafor and You reacted with love. Smith, Jane and J. R. Okafor reacted with laugh.",
		"Smith, Jane said: " + TriviaEmoji + ". Received on",
		"J. R. Okafor said: " + TriviaScores + ". Received on",
	} {
		if !strings.Contains(labels, want) {
			t.Errorf("trivia labels lack %.120q:\n%.600s", want, labels)
		}
	}
	if n := utf8.RuneCountInString(TriviaEmoji); n != 3000 || len(utf16.Encode([]rune(TriviaEmoji))) != 6000 {
		t.Errorf("TriviaEmoji is %d code points, want 3000 (6000 UTF-16 units)", n)
	}
	plain := startTest(t, Options{Seed: 3, Variants: []Variant{VariantAstral}})
	pc := plain.Conversations()
	if got := pc[len(pc)-1]; strings.Join(got.Participants, "|") != "Ann|Ben|Cy" {
		t.Errorf("trivia group without punctuated-names has %v, want Ann, Ben, Cy", got.Participants)
	}
}

// A held simulator answers the page's state request only after ReleasePages, and Close ends a
// held request instead of waiting for it.
func TestHeldPagesGetTheirStateOnlyAfterRelease(t *testing.T) {
	s := startTest(t, Options{})
	s.HoldPages()
	got := make(chan error, 2)
	get := func() {
		resp, err := http.Get(s.URL() + "/__sim/page/state")
		if err == nil {
			if resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("state request: status %d", resp.StatusCode)
			}
			resp.Body.Close()
		}
		got <- err
	}
	go get()
	select {
	case err := <-got:
		t.Fatalf("state request answered while the pages are held (err %v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	s.ReleasePages()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("state request still waiting 30 s after ReleasePages")
	}

	// Held again, Close lets the waiting request go.
	s.HoldPages()
	go get()
	time.Sleep(100 * time.Millisecond)
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return while a page was held")
	}
	<-got
}
