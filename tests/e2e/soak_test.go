//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/tests/fakellm"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// The soak (issue 32.2): the real app on the simulator through hours of use compressed into
// a run of its own, its memory sampled as it stands at 10 minutes and at the end. The
// scenario is a plan drawn from a seed (soakPlan): friends writing in a dozen conversations,
// Clanker answering whoever addresses it in the conversations where it is Available,
// pictures it is asked to look at, conversation switches, scroll-backs, the settings
// window opened and closed, a page reload and the page's web process killed. The driver
// (soakRun) carries the plan out as a user and their friends would: every switch is a
// click in the page's sidebar, the settings window is opened from the status pill with
// real clicks and closed with the window manager's close request.

// soakScale is how much use a run compresses and into how long.
type soakScale struct {
	// Length is the wall-clock time the plan is spread over, from the end of the set-up. A
	// step whose time has come runs at once; the driver never waits for the app except where
	// a person would (a reply they asked for, a window they opened).
	Length time.Duration
	// SampleAt is when, from the app's start, the first of the two samples is taken.
	SampleAt time.Duration
	// Messages friends send (mentions and pictures included); MentionEvery: every n-th
	// message into the open conversation, when Clanker is Available there, addresses it.
	Messages, MentionEvery int
	// Switches between conversations, scroll-backs (older rows loaded at the top), pictures
	// (Images, of which the model asks to see Looks) and openings of the settings window.
	Switches, ScrollBacks, Images, Looks, Settings int
	// ReloadAt and KillAt place the page reload and the kill of the page's web process, as
	// fractions of Length (negative: not in the plan).
	ReloadAt, KillAt float64
}

// soakFull is the benchmark's scale: about three hours of a busy user's day (a message a
// few seconds apart, a conversation switch every three minutes) in half an hour. The reload
// and the kill come before the 10-minute sample, so the growth from there to the end is
// that of one web process used without a break: a fresh process after either would hide
// what the page's process had grown to.
var soakFull = soakScale{
	Length: 30 * time.Minute, SampleAt: 10 * time.Minute,
	Messages: 3000, MentionEvery: 20,
	Switches: 60, ScrollBacks: 40, Images: 20, Looks: 10, Settings: 10,
	ReloadAt: 0.1, KillAt: 0.2,
}

// soakConversation is one conversation of the scenario.
type soakConversation struct {
	Name    string
	Friends []string
	// Available: Clanker is switched to Available there at the start (the others stay
	// Deactivated, the default), so a message that addresses it gets a typed reply.
	Available bool
	// Create: the scenario creates it (the others are the simulator's demo content).
	Create bool
	// Weight is how often a switch lands on it.
	Weight int
}

// soakConversations: the simulator's demo conversations and seven more, so the sidebar is
// as long as a real one's first screen. Jane Doe gets no messages: the samples are taken
// with her conversation open, whose page content is then the same every time.
var soakConversations = []soakConversation{
	{Name: sim.DemoBob, Friends: []string{"Bob"}, Available: true, Weight: 6},
	{Name: sim.DemoFamily, Friends: []string{"Dad", "Mom"}, Available: true, Weight: 5},
	{Name: "Weekend trip", Friends: []string{"Maya", "Leo", "Priya"}, Available: true, Create: true, Weight: 6},
	{Name: sim.DemoBookClub, Friends: []string{"Ana", "Priya", "Tom"}, Weight: 3},
	{Name: sim.DemoPhone, Friends: []string{sim.DemoPhone}, Weight: 1},
	{Name: "Climbing crew", Friends: []string{"Zoe Park", "Sam K.", "Ivan"}, Create: true, Weight: 3},
	{Name: "Alex Kim", Friends: []string{"Alex Kim"}, Create: true, Weight: 2},
	{Name: "Nora", Friends: []string{"Nora"}, Create: true, Weight: 2},
	{Name: "Work lunch", Friends: []string{"Dana", "Chris", "Mei"}, Create: true, Weight: 2},
	{Name: "Pat Lee", Friends: []string{"Pat Lee"}, Create: true, Weight: 1},
	{Name: "Landlord", Friends: []string{"Mr. Okafor"}, Create: true, Weight: 1},
}

// soakPatience bounds each wait for the app (the page coming back, the settings
// window): far longer than any of them takes, because the soak runs niced on machines
// shared with other work, where a niced process can get a few percent of a core for
// minutes. A slow step delays the plan (the run takes longer); it does not change what
// the memory figures measure.
const soakPatience = 10 * time.Minute

// soakQuiet is the conversation open at every sample.
const soakQuiet = sim.DemoJane

type soakKind int

const (
	soakMessage  soakKind = iota // a friend writes (into the open conversation or another)
	soakMention                  // a friend addresses Clanker in the open conversation
	soakImage                    // a friend sends a picture into the open conversation
	soakSwitch                   // the user opens another conversation
	soakScroll                   // the user scrolls back in the open conversation
	soakSettings                 // the user opens the settings window and closes it again
	soakReload                   // the page is reloaded
	soakKill                     // the page's web process is killed
)

// soakStep is one thing that happens, At after the plan starts.
type soakStep struct {
	At   time.Duration
	Kind soakKind
	Conv string // the conversation's name
	From string
	Text string
	// Image is the picture of a soakImage step; Look makes the model ask to see it (the app
	// then fetches it from the page and prepares it).
	Image string
	Look  bool
}

// soakPlan draws the scenario for sc from seed. The plan follows which conversation is
// open at each moment, so mentions and pictures go where Clanker is Available and on
// screen, and other messages arrive both in the open conversation and behind it.
func soakPlan(sc soakScale, seed uint64) []soakStep {
	r := rand.New(rand.NewPCG(seed, 0x50a4))
	var steps []soakStep
	at := func(i, n int) time.Duration {
		return time.Duration(float64(sc.Length) * (float64(i) + 0.5) / float64(n))
	}
	for i := range sc.Switches {
		steps = append(steps, soakStep{At: at(i, sc.Switches), Kind: soakSwitch})
	}
	for i := range sc.ScrollBacks {
		steps = append(steps, soakStep{At: at(i, sc.ScrollBacks) + time.Second, Kind: soakScroll})
	}
	for i := range sc.Settings {
		steps = append(steps, soakStep{At: at(i, sc.Settings) + 2*time.Second, Kind: soakSettings})
	}
	for i := range sc.Images {
		steps = append(steps, soakStep{At: at(i, sc.Images) + 3*time.Second, Kind: soakImage, Look: i%2 == 0 && i/2 < sc.Looks})
	}
	for i := range sc.Messages - sc.Images {
		steps = append(steps, soakStep{At: at(i, sc.Messages-sc.Images), Kind: soakMessage})
	}
	if sc.ReloadAt >= 0 {
		steps = append(steps, soakStep{At: time.Duration(sc.ReloadAt * float64(sc.Length)), Kind: soakReload})
	}
	if sc.KillAt >= 0 {
		steps = append(steps, soakStep{At: time.Duration(sc.KillAt * float64(sc.Length)), Kind: soakKill})
	}
	slices.SortStableFunc(steps, func(a, b soakStep) int { return int(a.At - b.At) })

	byName := map[string]soakConversation{}
	var weighted, available []string
	for _, c := range soakConversations {
		byName[c.Name] = c
		for range c.Weight {
			weighted = append(weighted, c.Name)
		}
		if c.Available {
			available = append(available, c.Name)
		}
	}
	open := available[0]
	inOpen := 0 // messages into the open conversation since it was opened
	out := []soakStep{{Kind: soakSwitch, Conv: open}}
	for _, s := range steps {
		switch s.Kind {
		case soakSwitch:
			for next := open; next == open; {
				next = weighted[r.IntN(len(weighted))]
				s.Conv = next
			}
			open, inOpen = s.Conv, 0
		case soakScroll:
			s.Conv = open
		case soakImage:
			if !byName[open].Available {
				// The picture goes where Clanker can be asked about it: the user opens one of
				// those conversations first.
				next := available[r.IntN(len(available))]
				out = append(out, soakStep{At: s.At, Kind: soakSwitch, Conv: next})
				open, inOpen = next, 0
			}
			c := byName[open]
			s.Conv, s.From, s.Image = open, c.Friends[r.IntN(len(c.Friends))], soakMedia[r.IntN(len(soakMedia))]
			if s.Look {
				s.Image = sim.MediaPhoto // the 12-megapixel photo: the costly one to prepare
			}
			s.Text = soakPictureText[r.IntN(len(soakPictureText))]
		case soakMessage:
			conv := open
			if r.IntN(4) == 0 || !slices.Contains(weighted, open) {
				conv = weighted[r.IntN(len(weighted))]
			}
			c := byName[conv]
			s.Conv, s.From = conv, c.Friends[r.IntN(len(c.Friends))]
			s.Text = soakText(r)
			if conv == open {
				inOpen++
				if c.Available && sc.MentionEvery > 0 && inOpen%sc.MentionEvery == 0 {
					s.Kind = soakMention
					s.Text = soakMentionText[r.IntN(len(soakMentionText))]
				}
			}
		}
		out = append(out, s)
	}
	return out
}

var (
	soakMedia       = []string{sim.MediaPhoto, sim.MediaPhoto, sim.MediaChart, sim.MediaGIF}
	soakPictureText = []string{"look at this", "from this morning", "", "the view right now", "haha"}
	soakMentionText = []string{
		"Clanker, what should we cook tonight?",
		"clanker are you there?",
		"Clanker, settle this: board games or a movie?",
		"hey clanker, any idea for a rainy afternoon?",
		"Clanker, can you remind us what we decided?",
		"Clanker what do you think?",
	}
	soakOpeners = []string{"ok", "so", "wait", "lol", "honestly", "btw", "also", "yes", "no way", "hmm"}
	soakWords   = strings.Fields("the we it is at for to and a of in on with tomorrow tonight dinner train " +
		"late early bring car park beach rain coffee movie tickets booked call later sure maybe " +
		"photos weekend groceries keys kids work meeting lunch gym plan again next week 7pm noon " +
		"❤️ 😂 👍 🎉 café naïve")
)

// soakText is an everyday message: a few words to a few sentences.
func soakText(r *rand.Rand) string {
	n := 2 + r.IntN(8)
	if r.IntN(10) == 0 {
		n += 20 + r.IntN(40) // now and then a long one
	}
	words := []string{soakOpeners[r.IntN(len(soakOpeners))]}
	for range n {
		words = append(words, soakWords[r.IntN(len(soakWords))])
	}
	text := strings.Join(words, " ")
	if r.IntN(3) == 0 {
		text += "?"
	}
	return text
}

// soakSample is the app's process tree's memory at one moment, by kind of process (app,
// webprocess, networkprocess, other; total is their sum, the settings window's processes
// left out), in MiB: PSS, its allocated part, RSS and own PSS (OwnPSS: what PSS would be
// with nothing else on the machine), with the Go runtime's figures as they stand.
type soakSample struct {
	At                     time.Duration // since the app started
	pss, alloc, rss, own   map[string]float64
	ownOK                  bool
	goHeap, goHeldFromOS   float64 // MiB: heap in use; heap kept from the OS (HeapSys-HeapReleased)
	goroutines, pageLoads  int
	webProcesses, commands int
}

// sampleNow reads the process tree as it stands: no collection, no waiting.
func (f *fullApp) sampleNow(b testing.TB) soakSample {
	b.Helper()
	root := f.app.Cmd.Process.Pid
	procs, err := ProcessTreePSS(root)
	if err != nil {
		b.Fatal(err)
	}
	kinds := processKinds(procs, root)
	s := soakSample{At: time.Since(f.app.Started), pss: map[string]float64{}, alloc: map[string]float64{}, rss: map[string]float64{}, own: map[string]float64{}}
	var pids []int
	for _, p := range procs {
		pids = append(pids, p.PID)
	}
	own, ok := OwnPSS(pids)
	s.ownOK = ok
	for _, p := range procs {
		for _, k := range []string{kinds[p.PID], "total"} {
			if kinds[p.PID] == "settings" && k == "total" {
				continue
			}
			s.pss[k] += float64(p.KiB) / 1024
			s.alloc[k] += float64(p.AllocKiB) / 1024
			s.rss[k] += float64(p.RSSKiB) / 1024
			s.own[k] += float64(own[p.PID]) / 1024
		}
		if kinds[p.PID] == "webprocess" {
			s.webProcesses++
		}
	}
	var ms struct {
		HeapInuse, HeapSys, HeapReleased, Goroutines uint64
	}
	if resp, err := f.request("GET", "/memstats"); err == nil {
		_ = json.NewDecoder(resp.Body).Decode(&ms)
		resp.Body.Close()
	}
	s.goHeap = float64(ms.HeapInuse) / (1 << 20)
	s.goHeldFromOS = float64(ms.HeapSys-ms.HeapReleased) / (1 << 20)
	s.goroutines = int(ms.Goroutines)
	s.pageLoads = strings.Count(f.app.Output(), `msg="bridge connected"`)
	for _, n := range f.status().Commands {
		s.commands += n
	}
	return s
}

func (s soakSample) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%5.1f min: PSS", s.At.Minutes())
	for _, k := range []string{"total", "app", "webprocess", "networkprocess"} {
		fmt.Fprintf(&b, " %s %.1f", k, s.pss[k])
	}
	fmt.Fprintf(&b, "; own PSS %.1f; alloc %.1f (app %.1f, web %.1f, net %.1f); RSS %.1f; Go heap %.1f (held %.1f), %d goroutines; %d page loads, %d commands",
		s.own["total"], s.alloc["total"], s.alloc["app"], s.alloc["webprocess"], s.alloc["networkprocess"], s.rss["total"], s.goHeap, s.goHeldFromOS, s.goroutines, s.pageLoads, s.commands)
	return b.String()
}

// processKinds names each process of the app's tree: the app itself, WebKit's web and
// network processes, the settings window (a clanker child process and everything under
// it), or other.
func processKinds(procs []ProcessPSS, root int) map[int]string {
	parentOf, settings := map[int]int{}, map[int]bool{}
	for _, p := range procs {
		parentOf[p.PID] = p.Parent
		if p.PID != root && p.Name == "clanker" {
			settings[p.PID] = true
		}
	}
	kinds := map[int]string{}
	for _, p := range procs {
		kind := "other"
		for q := p.PID; q > 1 && q != root; q = parentOf[q] {
			if settings[q] {
				kind = "settings"
			}
		}
		switch {
		case kind == "settings":
		case p.PID == root:
			kind = "app"
		case strings.HasPrefix(p.Name, "WebKitWebProces"):
			kind = "webprocess"
		case strings.HasPrefix(p.Name, "WebKitNetworkPr"):
			kind = "networkprocess"
		}
		kinds[p.PID] = kind
	}
	return kinds
}

// soakRun is one run of the scenario on one app.
type soakRun struct {
	f     *fullApp
	t     testing.TB
	ids   map[string]string // conversation name -> simulator id
	open  string            // the open conversation's name
	count map[soakKind]int  // steps carried out, by kind
	// replies is how many replies Clanker sent; looked how many pictures the model was
	// shown (each fetched from the page and prepared).
	replies, looked int
	missed          []string // replies that did not come (what, where, when, the app's state)
}

// setUp starts the app configured, creates the scenario's conversations, switches Clanker
// to Available where the scenario has it, and leaves the quiet conversation open.
func (r *soakRun) setUp() {
	f := r.f
	f.configure()
	f.launch()
	r.ids = map[string]string{}
	// Clanker is switched on while the sidebar is still short: the pill's menu opens
	// over the bottom of the sidebar, and a click that races the pill's redraw lands on
	// whatever is under it.
	for _, c := range soakConversations {
		if !c.Available || c.Create {
			continue
		}
		r.ids[c.Name] = f.conversation(c.Name)
		r.switchTo(c.Name)
		f.pillMenu("available")
		f.waitSent(r.ids[c.Name], "[clanker]")
		f.waitQuiet()
	}
	for _, c := range soakConversations {
		if c.Create {
			conv, err := f.ctl.CreateConversation(sim.NewConversation{Name: c.Name, Participants: c.Friends, RCS: len(c.Friends) > 1})
			if err != nil {
				r.t.Fatal(err)
			}
			// A conversation starts with some history, as after months of use.
			for i := range 12 {
				if _, err := f.ctl.Deliver(conv.ID, sim.Message{From: c.Friends[i%len(c.Friends)], Text: fmt.Sprintf("earlier message %d in %s", i+1, c.Name)}); err != nil {
					r.t.Fatal(err)
				}
			}
		}
		r.ids[c.Name] = f.conversation(c.Name)
	}
	r.ids[soakQuiet] = f.conversation(soakQuiet)
	for _, c := range soakConversations {
		if !c.Available || !c.Create {
			continue
		}
		r.switchTo(c.Name)
		f.pillMenu("available")
		if st := f.status(); st.Current != r.ids[c.Name] {
			r.t.Fatalf("Clanker was switched on in %s instead of %s", st.Current, r.ids[c.Name])
		}
		f.waitSent(r.ids[c.Name], "[clanker]")
		f.waitQuiet()
	}
	r.switchTo(soakQuiet)
	f.front()
	_ = display.Screenshot(filepath.Join(ArtifactsDir(), "soak-set-up.png"))
}

// switchTo opens a conversation with a click in the sidebar and waits until the app has it.
func (r *soakRun) switchTo(name string) {
	r.f.open(r.ids[name])
	r.open = name
}

// clankerSends counts Clanker's messages the page accepted in a conversation.
func (r *soakRun) clankerSends(name string) int {
	return len(r.f.sends(r.ids[name], "[clanker] "))
}

// soakReplyWait bounds the wait for one reply. A reply that does not come is counted and
// reported (replies-missed), with a screenshot and the app's state, and the run goes on:
// the soak measures memory, and one missed reply must not cost the figures of the whole
// run. The count is in BENCHMARKS.md beside them; the liveness tests own the failure.
const soakReplyWait = 4 * time.Minute

// waitReply waits until Clanker has sent one more message in the conversation than before,
// and the app is quiet again; a reply that does not come within soakReplyWait is recorded
// in r.missed.
func (r *soakRun) waitReply(name string, before int, what string) {
	ok, last := testkit.Poll(soakReplyWait, func() (bool, string) {
		n := r.clankerSends(name)
		return n > before, fmt.Sprintf("%d of Clanker's messages, %d before; app %+v", n, before, r.f.status())
	})
	if !ok {
		r.missed = append(r.missed, fmt.Sprintf("%s in %s at %.1f min: %s", what, name, time.Since(r.f.app.Started).Minutes(), last))
		out := strings.Split(r.f.app.Output(), "\n")
		r.t.Logf("MISSED: no reply to %s in %s within %v; %s\nthe app's last lines:\n%s", what, name, soakReplyWait, last, strings.Join(out[max(0, len(out)-80):], "\n"))
		_ = display.Screenshot(filepath.Join(ArtifactsDir(), fmt.Sprintf("soak-missed-%d.png", len(r.missed))))
		return
	}
	r.replies++
	r.f.waitQuiet()
}

// waitPage waits until a page load after the loads counted in before has reported the open
// conversation with its sidebar.
func (r *soakRun) waitPage(before int, what string) {
	testkit.WaitFor(r.t, soakPatience, "the page to come back after "+what, func() (bool, string) {
		loads := strings.Count(r.f.app.Output(), `msg="bridge connected"`)
		st := r.f.status()
		return loads > before && st.Current == r.ids[r.open] && st.PageState == "conversation" && st.Sidebar > 0,
			fmt.Sprintf("%d page loads (%d before); app %+v", loads, before, st)
	})
}

// do carries out one step.
func (r *soakRun) do(s soakStep) {
	f := r.f
	r.count[s.Kind]++
	switch s.Kind {
	case soakMention, soakImage, soakScroll:
		// The plan has this conversation open; a sample in between may have opened the
		// quiet one, so the user goes back first.
		if r.open != s.Conv {
			r.switchTo(s.Conv)
			r.count[soakSwitch]++
		}
	}
	switch s.Kind {
	case soakMessage:
		if _, err := f.ctl.Deliver(r.ids[s.Conv], sim.Message{From: s.From, Text: s.Text}); err != nil {
			r.t.Fatal(err)
		}
	case soakMention:
		before := r.clankerSends(s.Conv)
		if _, err := f.ctl.Deliver(r.ids[s.Conv], sim.Message{From: s.From, Text: s.Text}); err != nil {
			r.t.Fatal(err)
		}
		r.waitReply(s.Conv, before, "a mention")
	case soakImage:
		if _, err := f.ctl.Deliver(r.ids[s.Conv], sim.Message{From: s.From, Text: s.Text, Image: s.Image}); err != nil {
			r.t.Fatal(err)
		}
		if !s.Look {
			return
		}
		// Someone asks Clanker about the picture; the model asks to see it, the app fetches
		// it from the page and prepares it, and the model (the demo persona) acknowledges it.
		f.waitQuiet()
		before := r.clankerSends(s.Conv)
		f.llm.Enqueue(fakellm.AskForLastImage())
		if _, err := f.ctl.Deliver(r.ids[s.Conv], sim.Message{From: s.From, Text: "Clanker, what do you see in this picture?"}); err != nil {
			r.t.Fatal(err)
		}
		r.waitReply(s.Conv, before, "a question about a picture")
		r.looked++ // the model was asked to look; the missed count says whether it answered
	case soakSwitch:
		r.switchTo(s.Conv)
	case soakScroll:
		if err := f.ctl.LoadOlder(15); err != nil {
			r.t.Fatal(err)
		}
	case soakSettings:
		r.settingsOpenClose()
	case soakReload:
		before := strings.Count(f.app.Output(), `msg="bridge connected"`)
		f.post("/reload")
		r.waitPage(before, "the reload")
	case soakKill:
		before := strings.Count(f.app.Output(), `msg="bridge connected"`)
		pid := r.webProcess()
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			r.t.Fatalf("kill the web process %d: %v", pid, err)
		}
		r.waitPage(before, "the web process was killed")
		if now := r.webProcess(); now == pid {
			r.t.Fatalf("the web process %d is still there after it was killed", pid)
		}
	}
}

// webProcess is the pid of the main window's web process (not the settings window's).
func (r *soakRun) webProcess() int {
	root := r.f.app.Cmd.Process.Pid
	procs, err := ProcessTreePSS(root)
	if err != nil {
		r.t.Fatal(err)
	}
	kinds := processKinds(procs, root)
	var found []int
	for _, p := range procs {
		if kinds[p.PID] == "webprocess" {
			found = append(found, p.PID)
		}
	}
	if len(found) != 1 {
		r.t.Fatalf("want one web process for the main window, found %v", found)
	}
	return found[0]
}

// settingsOpenClose opens the settings window from the status pill, waits until its page
// has loaded its values, and closes it as the window manager's close button does.
func (r *soakRun) settingsOpenClose() {
	f := r.f
	f.waitQuiet()
	loads := strings.Count(f.app.Output(), "settings page loaded its values")
	f.openSettingsFromPill()
	testkit.WaitFor(r.t, soakPatience, "the settings page to load its values", func() (bool, string) {
		return strings.Count(f.app.Output(), "settings page loaded its values") > loads, "not yet"
	})
	closeFromWindowManager(r.t, "Clanker settings")
	testkit.WaitFor(r.t, soakPatience, "the settings process to end", func() (bool, string) {
		n := len(Descendants(f.app.Cmd.Process.Pid, "clanker"))
		return n == 0 && !windowVisible("Clanker settings"), fmt.Sprintf("%d settings processes", n)
	})
	f.front()
}

// sampleQuiet opens the quiet conversation (whose page content is the same each time) and
// samples at once.
func (r *soakRun) sampleQuiet() soakSample {
	if r.open != soakQuiet {
		r.switchTo(soakQuiet)
	}
	return r.f.sampleNow(r.t)
}

// sampleIdle opens the quiet conversation, waits for the app's own idle release and for
// PSS to settle (as BenchmarkAppMemory's samples), and samples.
func (r *soakRun) sampleIdle(b *testing.B) soakSample {
	if r.open != soakQuiet {
		r.switchTo(soakQuiet)
	}
	r.f.waitIdleSettled(b)
	dumpSmaps(b, r.f)
	return r.f.sampleNow(b)
}

// BenchmarkAppSoak runs soakFull once per op and reports the memory of the app and its
// WebKit processes (the settings window's own processes left out; at the samples none is
// open) at 10 minutes after the app started and at the end of the plan, each read as it
// stands (no collection forced, no idle release waited for), with the quiet conversation
// open; and, for comparison, idle at the start and idle at the end (each after the app's
// own idle release and PSS settled, as BenchmarkAppMemory samples).
//
// Where the simulator's own memory goes: its server (conversations, messages, the send
// logs) runs in the test process, outside the app's process tree; its page's state (the
// open conversation's rows, the sidebar) is in the web process, and at both samples the
// page shows the same conversation with the same content and the same sidebar (every
// conversation exists from the set-up on; the quiet one gets no messages). The page's own
// script keeps no history of what it showed (it holds the open conversation's rows and
// replaces them when another opens), so what the web process grows by between the samples
// is WebKit's and the bridge's.
func BenchmarkAppSoak(b *testing.B) {
	needDisplayB(b)
	sc := soakFull
	if d := os.Getenv("CLANKER_SOAK_MINUTES"); d != "" {
		// A shorter soak for looking into something: the same plan in fewer minutes (the
		// counts scale with it), the first sample at a third.
		m, err := strconv.ParseFloat(d, 64)
		if err != nil || m <= 0 {
			b.Fatalf("CLANKER_SOAK_MINUTES=%q: want a positive number of minutes", d)
		}
		sc = scaleSoak(soakFull, m)
	}
	var idle, at10, end, endIdle soakSample
	var deepDuring int
	var series []soakSample // from the 10-minute sample to the end, a minute apart
	var r *soakRun
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f := newFullApp(b)
		b.Cleanup(func() {
			if b.Failed() {
				_ = display.Screenshot(filepath.Join(ArtifactsDir(), "soak-failed.png"))
			}
		})
		r = &soakRun{f: f, t: b, count: map[soakKind]int{}}
		r.setUp()
		idle = r.sampleIdle(b)
		b.Logf("idle at the start: %v", idle)
		plan := soakPlan(sc, 32)
		deepBefore := f.status().DeepMemoryReleases
		b.StartTimer()
		start := time.Now()
		var taken bool
		series = nil
		nextSeries := time.Now()
		for _, s := range plan {
			if wait := time.Until(start.Add(s.At)); wait > 0 {
				time.Sleep(wait)
			}
			if !taken && time.Since(f.app.Started) >= sc.SampleAt {
				at10 = r.sampleQuiet()
				dumpSmaps(b, f)
				b.Logf("sample at %v: %v", sc.SampleAt, at10)
				taken = true
				series = append(series, at10)
				nextSeries = time.Now().Add(time.Minute)
			}
			if time.Now().After(nextSeries) {
				now := f.sampleNow(b)
				b.Logf("series: %v", now)
				if taken {
					series = append(series, now)
				}
				nextSeries = time.Now().Add(time.Minute)
			}
			r.do(s)
		}
		if !taken {
			b.Fatalf("the plan ended %v after the app started, before the first sample was due at %v", time.Since(f.app.Started), sc.SampleAt)
		}
		end = r.sampleQuiet()
		dumpSmaps(b, f)
		b.Logf("sample at the end: %v", end)
		series = append(series, end)
		// The plan keeps the app busy: a deep idle release (after 2 minutes of quiet) in
		// its middle would mean a stall, and would make the samples read low.
		deepDuring = f.status().DeepMemoryReleases - deepBefore
		b.StopTimer()
		endIdle = r.sampleIdle(b)
		b.Logf("idle at the end: %v", endIdle)
		f.noUntrustedInput()
		f.app.Stop()
		b.StartTimer()
	}
	report := func(s soakSample, when string) {
		for _, k := range []string{"total", "app", "webprocess", "networkprocess"} {
			b.ReportMetric(s.pss[k], "MiB-pss-"+k+"-"+when)
		}
		b.ReportMetric(s.rss["total"], "MiB-rss-total-"+when)
		b.ReportMetric(s.alloc["total"], "MiB-alloc-total-"+when)
		if s.ownOK {
			b.ReportMetric(s.own["total"], "MiB-own-pss-total-"+when)
		}
	}
	report(idle, "idle")
	report(at10, "10min")
	report(end, "end")
	report(endIdle, "end-idle")
	for _, k := range []string{"app", "webprocess", "networkprocess"} {
		b.ReportMetric(end.alloc[k]-at10.alloc[k], "MiB-alloc-"+k+"-growth")
	}
	b.ReportMetric(100*(end.pss["total"]/at10.pss["total"]-1), "growth-pss-%")
	b.ReportMetric(100*(end.rss["total"]/at10.rss["total"]-1), "growth-rss-%")
	if end.ownOK && at10.ownOK {
		b.ReportMetric(100*(end.own["total"]/at10.own["total"]-1), "growth-own-pss-%")
	}
	// Two readings as they stand move with the page's collector (the web process's allocated
	// memory swings by tens of MiB between collections); the trend over the readings a
	// minute apart from the 10-minute sample to the end says what grows.
	trend := func(of func(soakSample) float64) float64 {
		var at, v []float64
		for _, s := range series {
			at, v = append(at, s.At.Hours()), append(v, of(s))
		}
		return slope(at, v)
	}
	b.ReportMetric(trend(func(s soakSample) float64 { return s.pss["total"] }), "MiB-per-hour-pss-trend")
	b.ReportMetric(trend(func(s soakSample) float64 { return s.alloc["total"] }), "MiB-per-hour-alloc-trend")
	b.ReportMetric(trend(func(s soakSample) float64 { return s.rss["total"] }), "MiB-per-hour-rss-trend")
	if end.ownOK && at10.ownOK {
		b.ReportMetric(trend(func(s soakSample) float64 { return s.own["total"] }), "MiB-per-hour-own-pss-trend")
	}
	b.ReportMetric(float64(len(series)), "trend-readings")
	b.ReportMetric(at10.goHeap, "MiB-go-heap-10min")
	b.ReportMetric(end.goHeap, "MiB-go-heap-end")
	b.ReportMetric(float64(end.goroutines-at10.goroutines), "goroutines-growth")
	b.ReportMetric(float64(r.count[soakMessage]+r.count[soakMention]+r.count[soakImage]+r.looked), "messages")
	b.ReportMetric(float64(r.replies), "replies")
	b.ReportMetric(float64(deepDuring), "deep-releases-during-plan")
	b.ReportMetric(float64(len(r.missed)), "replies-missed")
	for _, m := range r.missed {
		b.Logf("missed reply: %s", m)
	}
	b.ReportMetric(float64(r.count[soakSwitch]), "switches")
	b.ReportMetric(float64(r.count[soakScroll]), "scroll-backs")
	b.ReportMetric(float64(r.count[soakImage]), "images")
	b.ReportMetric(float64(r.looked), "images-looked-at")
	b.ReportMetric(float64(r.count[soakSettings]), "settings-opened")
	b.ReportMetric(float64(end.commands), "page-commands")
	b.ReportMetric(end.At.Minutes(), "minutes")
}

// slope is the least-squares slope of v over x (0 with fewer than two distinct x).
func slope(x, v []float64) float64 {
	n := float64(len(x))
	if len(x) < 2 || len(x) != len(v) {
		return 0
	}
	var sx, sv float64
	for i := range x {
		sx, sv = sx+x[i], sv+v[i]
	}
	mx, mv := sx/n, sv/n
	var num, den float64
	for i := range x {
		num += (x[i] - mx) * (v[i] - mv)
		den += (x[i] - mx) * (x[i] - mx)
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// scaleSoak is sc shortened to minutes of plan, every count in proportion (at least one
// of each), the first sample at a third of the way.
func scaleSoak(sc soakScale, minutes float64) soakScale {
	k := minutes / sc.Length.Minutes()
	n := func(v int) int { return max(1, int(float64(v)*k+0.5)) }
	out := sc
	out.Length = time.Duration(minutes * float64(time.Minute))
	out.SampleAt = 2*time.Minute + out.Length/3 // the set-up takes a minute or two
	out.Messages, out.Switches, out.ScrollBacks = n(sc.Messages), n(sc.Switches), n(sc.ScrollBacks)
	out.Images, out.Looks, out.Settings = n(sc.Images), n(sc.Looks), n(sc.Settings)
	return out
}

// The soak's plan holds what issue 32.2 asks of a run (thousands of messages, dozens of
// switches and scroll-backs, 20 pictures, the settings window 10 times, a reload, a killed
// web process), in time order within the run, the same for the same seed; and its driver
// can carry it out: what needs an open conversation (a mention, a picture, a scroll-back)
// comes while the plan has that conversation open, and mentions and pictures go where
// Clanker is Available. Cheap: no app runs.
func TestSoakPlan(t *testing.T) {
	sc := soakFull
	plan := soakPlan(sc, 32)
	if again := soakPlan(sc, 32); !slices.Equal(plan, again) {
		t.Fatal("the same seed drew two different plans")
	}
	if other := soakPlan(sc, 33); slices.Equal(plan, other) {
		t.Error("two seeds drew the same plan")
	}
	available := map[string]bool{}
	known := map[string]bool{}
	for _, c := range soakConversations {
		available[c.Name] = c.Available
		known[c.Name] = true
	}
	count := map[soakKind]int{}
	var lastAt time.Duration
	open := ""
	for i, s := range plan {
		count[s.Kind]++
		if s.At < lastAt || s.At > sc.Length {
			t.Fatalf("step %d at %v: out of order (previous at %v) or past the run's %v", i, s.At, lastAt, sc.Length)
		}
		lastAt = s.At
		switch s.Kind {
		case soakSwitch:
			if !known[s.Conv] || s.Conv == open {
				t.Errorf("step %d switches to %q with %q open", i, s.Conv, open)
			}
			open = s.Conv
		case soakMention, soakImage:
			if s.Conv != open || !available[s.Conv] || s.From == "" {
				t.Errorf("step %d (%v) in %q from %q, with %q open", i, s.Kind, s.Conv, s.From, open)
			}
			if s.Kind == soakMention && !strings.Contains(strings.ToLower(s.Text), "clanker") {
				t.Errorf("step %d: a mention that does not address Clanker: %q", i, s.Text)
			}
			if s.Kind == soakImage && s.Image == "" {
				t.Errorf("step %d: a picture step without a picture", i)
			}
		case soakScroll:
			if s.Conv != open {
				t.Errorf("step %d scrolls back in %q with %q open", i, s.Conv, open)
			}
		case soakMessage:
			if !known[s.Conv] || s.From == "" || s.Text == "" {
				t.Errorf("step %d: message %+v", i, s)
			}
			if strings.Contains(strings.ToLower(s.Text), "clanker") {
				t.Errorf("step %d: a plain message addresses Clanker: %q", i, s.Text)
			}
		}
		if s.Conv == soakQuiet {
			t.Errorf("step %d (%v) touches the quiet conversation the samples are taken on", i, s.Kind)
		}
	}
	looks := 0
	for _, s := range plan {
		if s.Look {
			looks++
		}
	}
	messages := count[soakMessage] + count[soakMention] + count[soakImage]
	if messages != sc.Messages || count[soakImage] != sc.Images || looks != sc.Looks ||
		count[soakScroll] != sc.ScrollBacks || count[soakSettings] != sc.Settings ||
		count[soakReload] != 1 || count[soakKill] != 1 || count[soakSwitch] < sc.Switches {
		t.Errorf("plan has %d messages, %d pictures (%d looked at), %d scroll-backs, %d settings, %d reloads, %d kills, %d switches; want %+v",
			messages, count[soakImage], looks, count[soakScroll], count[soakSettings], count[soakReload], count[soakKill], count[soakSwitch], sc)
	}
	if count[soakMention] < 20 {
		t.Errorf("only %d mentions: Clanker would hardly be asked", count[soakMention])
	}
	if messages < 1000 || count[soakSwitch] < 24 || count[soakScroll] < 24 || count[soakImage] != 20 || count[soakSettings] != 10 {
		t.Errorf("soakFull is smaller than issue 32.2's soak: %+v", sc)
	}
	// The reload and the kill come before the first sample, so both samples see one web
	// process used without a break.
	for _, s := range plan {
		if (s.Kind == soakReload || s.Kind == soakKill) && s.At >= sc.SampleAt-3*time.Minute {
			t.Errorf("%v at %v: not well before the sample at %v from the app's start", s.Kind, s.At, sc.SampleAt)
		}
	}
	short := scaleSoak(sc, 3)
	if short.Length != 3*time.Minute || short.Messages != 300 || short.Images != 2 || short.Settings != 1 || short.SampleAt >= short.Length+2*time.Minute {
		t.Errorf("scaled to 3 minutes: %+v", short)
	}
}

func TestSlope(t *testing.T) {
	for _, c := range []struct {
		x, v []float64
		want float64
	}{
		{[]float64{0, 1, 2, 3}, []float64{10, 12, 14, 16}, 2},
		{[]float64{0, 1, 2, 3}, []float64{10, 14, 10, 14}, 0.8}, // a swing around a slow rise
		{[]float64{1, 1}, []float64{3, 5}, 0},
		{[]float64{1}, []float64{3}, 0},
		{nil, nil, 0},
	} {
		if got := slope(c.x, c.v); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("slope(%v, %v) = %v, want %v", c.x, c.v, got, c.want)
		}
	}
}

// processKinds tells the main window's processes from the settings window's, which are a
// clanker child process and everything under it.
func TestProcessKinds(t *testing.T) {
	procs := []ProcessPSS{
		{PID: 100, Parent: 1, Name: "clanker"},
		{PID: 101, Parent: 100, Name: "WebKitNetworkPr"},
		{PID: 102, Parent: 100, Name: "WebKitWebProces"},
		{PID: 110, Parent: 100, Name: "clanker"}, // the settings window
		{PID: 111, Parent: 110, Name: "WebKitWebProces"},
		{PID: 112, Parent: 110, Name: "WebKitNetworkPr"},
		{PID: 120, Parent: 100, Name: "xdg-open"},
	}
	got := processKinds(procs, 100)
	want := map[int]string{100: "app", 101: "networkprocess", 102: "webprocess", 110: "settings", 111: "settings", 112: "settings", 120: "other"}
	for pid, k := range want {
		if got[pid] != k {
			t.Errorf("pid %d: %q, want %q (all: %v)", pid, got[pid], k, got)
		}
	}
}
