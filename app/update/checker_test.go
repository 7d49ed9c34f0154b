package update

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// The checker's timing, in testing/synctest's fake time: the feed is a stub that counts its
// calls (the real feed over HTTP is feed_test.go's).

type stubFeed struct {
	mu    sync.Mutex
	calls []string // the feed asked, per call
	rel   Release
	err   error
}

func (s *stubFeed) fetch(ctx context.Context, feed string, allowPre bool) (Release, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, feed)
	return s.rel, s.err
}

func (s *stubFeed) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

func (s *stubFeed) set(rel Release, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rel, s.err = rel, err
}

type noticeLog struct {
	mu  sync.Mutex
	all []Notice
}

func (n *noticeLog) add(x Notice) { n.mu.Lock(); n.all = append(n.all, x); n.mu.Unlock() }
func (n *noticeLog) last() Notice {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.all) == 0 {
		return Notice{}
	}
	return n.all[len(n.all)-1]
}

type settingsBox struct {
	mu sync.Mutex
	u  engine.Updates
}

func (b *settingsBox) get() engine.Updates  { b.mu.Lock(); defer b.mu.Unlock(); return b.u }
func (b *settingsBox) put(u engine.Updates) { b.mu.Lock(); b.u = u; b.mu.Unlock() }
func release(v string) Release {
	r, _ := ParseVersion(v)
	return Release{Version: r, URL: ReleasesPage + "/tag/v" + v}
}
func newChecker(dir, version string, feed *stubFeed, box *settingsBox, notes *noticeLog) *Checker {
	return &Checker{Version: version, Dir: dir, Settings: box.get, Fetch: feed.fetch, OnNotice: notes.add}
}

func TestTheFirstCheckWaitsThenOneADay(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		feed := &stubFeed{rel: release("1.3.0")}
		box := &settingsBox{u: engine.Updates{Check: true}}
		notes := &noticeLog{}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c := newChecker(dir, "1.2.0", feed, box, notes)
		go c.Run(ctx)

		synctest.Wait()
		if feed.count() != 0 {
			t.Fatal("the feed was asked at start; the first check waits FirstDelay")
		}
		time.Sleep(FirstDelay)
		synctest.Wait()
		if feed.count() != 1 {
			t.Fatalf("after FirstDelay: %d checks, want 1", feed.count())
		}
		if n := notes.last(); n.Version != "1.3.0" || n.URL != ReleasesPage+"/tag/v1.3.0" {
			t.Fatalf("notice after the check: %+v, want 1.3.0 with its page", n)
		}
		st, err := LoadState(dir)
		if err != nil || st.Latest != "1.3.0" || st.CheckedAt.IsZero() || st.Error != "" {
			t.Fatalf("saved state: %+v %v", st, err)
		}

		// A whole day of hourly wake-ups asks nothing more; the next day's does.
		time.Sleep(Interval - FirstDelay - time.Second)
		synctest.Wait()
		if feed.count() != 1 {
			t.Fatalf("within a day of the first check: %d checks, want 1", feed.count())
		}
		time.Sleep(Poll + time.Second)
		synctest.Wait()
		if feed.count() != 2 {
			t.Fatalf("a day after the first check: %d checks, want 2", feed.count())
		}
	})
}

// A restart within the day neither asks again nor forgets the update: the notice is there at
// once, from the state file.
func TestARestartShowsTheKnownUpdateWithoutAskingAgain(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		if err := SaveState(dir, State{CheckedAt: time.Now().Add(-time.Hour), Latest: "1.3.0", URL: ReleasesPage + "/tag/v1.3.0"}); err != nil {
			t.Fatal(err)
		}
		feed := &stubFeed{rel: release("1.3.0")}
		box := &settingsBox{u: engine.Updates{Check: true}}
		notes := &noticeLog{}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go newChecker(dir, "1.2.0", feed, box, notes).Run(ctx)
		synctest.Wait()
		if n := notes.last(); n.Version != "1.3.0" {
			t.Fatalf("at start: notice %+v, want the 1.3.0 known from the last run", n)
		}
		time.Sleep(FirstDelay + 2*Poll)
		synctest.Wait()
		if feed.count() != 0 {
			t.Fatalf("%d checks within the day of the last one, want none", feed.count())
		}
		// 23 hours after that check, the next hourly look asks.
		time.Sleep(Interval)
		synctest.Wait()
		if feed.count() != 1 {
			t.Fatalf("a day after the last run's check: %d checks, want 1", feed.count())
		}
	})
}

// A feed that fails is asked again the next day, not sooner; what it offered before still
// shows, and the failure is kept for the settings window.
func TestAFailedCheckKeepsTheLastAnswerAndWaitsADay(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		feed := &stubFeed{rel: release("1.3.0")}
		box := &settingsBox{u: engine.Updates{Check: true}}
		notes := &noticeLog{}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go newChecker(dir, "1.2.0", feed, box, notes).Run(ctx)
		time.Sleep(FirstDelay)
		synctest.Wait()
		feed.set(Release{}, &FeedError{Sentence: "the release feed could not be reached"})
		time.Sleep(Interval)
		synctest.Wait()
		if feed.count() != 2 {
			t.Fatalf("%d checks, want 2", feed.count())
		}
		st, _ := LoadState(dir)
		if st.Error != "the release feed could not be reached" || st.Latest != "1.3.0" {
			t.Fatalf("state after a failed check: %+v; want the failure and the release known before", st)
		}
		if n := notes.last(); n.Version != "1.3.0" {
			t.Fatalf("notice after a failed check: %+v, want 1.3.0 still", n)
		}
		time.Sleep(Interval - time.Minute)
		synctest.Wait()
		if feed.count() != 2 {
			t.Fatalf("a failed check was retried within the day: %d checks", feed.count())
		}
	})
}

// Turned off, nothing is asked and nothing is shown; turning it off hides a shown notice at
// once, and turning it on again checks at the next look if a check is due.
func TestTheOptOut(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		feed := &stubFeed{rel: release("1.3.0")}
		box := &settingsBox{u: engine.Updates{Check: false}}
		notes := &noticeLog{}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c := newChecker(dir, "1.2.0", feed, box, notes)
		go c.Run(ctx)
		time.Sleep(3 * Interval)
		synctest.Wait()
		if feed.count() != 0 {
			t.Fatalf("with checks off the feed was asked %d times", feed.count())
		}
		box.put(engine.Updates{Check: true})
		c.SettingsChanged()
		synctest.Wait()
		if feed.count() != 1 {
			t.Fatalf("checks turned on with one due: %d checks, want 1 at once", feed.count())
		}
		if notes.last().Version != "1.3.0" {
			t.Fatalf("notice: %+v", notes.last())
		}
		box.put(engine.Updates{Check: false})
		c.SettingsChanged()
		synctest.Wait()
		if n := notes.last(); n != (Notice{}) {
			t.Fatalf("checks turned off: the notice %+v stays", n)
		}
	})
}

// A different feed is asked at once (after the first delay), and what the old one said no
// longer counts.
func TestANewFeedIsAskedAndTheOldAnswerDropped(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		if err := SaveState(dir, State{CheckedAt: time.Now(), Latest: "1.3.0", URL: ReleasesPage + "/tag/v1.3.0"}); err != nil {
			t.Fatal(err)
		}
		feed := &stubFeed{err: &FeedError{Sentence: "the release feed answered 404 Not Found"}}
		box := &settingsBox{u: engine.Updates{Check: true, Feed: "https://example.org/feed"}}
		notes := &noticeLog{}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go newChecker(dir, "1.2.0", feed, box, notes).Run(ctx)
		synctest.Wait()
		if n := notes.last(); n != (Notice{}) {
			t.Fatalf("the default feed's answer is shown for another feed: %+v", n)
		}
		time.Sleep(FirstDelay)
		synctest.Wait()
		if feed.count() != 1 || feed.calls[0] != "https://example.org/feed" {
			t.Fatalf("the new feed: calls %v, want one to https://example.org/feed", feed.calls)
		}
		st, _ := LoadState(dir)
		if st.Feed != "https://example.org/feed" || st.Latest != "" {
			t.Fatalf("state: %+v; want the new feed and nothing from the old one", st)
		}
	})
}

// A development build and an untagged snapshot never ask.
func TestBuildsThatAreNotReleasesNeverAsk(t *testing.T) {
	for _, v := range []string{"dev", "0.0.0-dev+g1a2b3c4"} {
		dir := t.TempDir()
		synctest.Test(t, func(t *testing.T) {
			feed := &stubFeed{rel: release("1.3.0")}
			box := &settingsBox{u: engine.Updates{Check: true}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{})
			go func() { newChecker(dir, v, feed, box, &noticeLog{}).Run(ctx); close(done) }()
			time.Sleep(2 * Interval)
			synctest.Wait()
			select {
			case <-done:
			default:
				t.Fatalf("%s: Run is still running; it should return at once", v)
			}
			if feed.count() != 0 {
				t.Fatalf("%s: the feed was asked", v)
			}
		})
	}
}

// Quitting during a check records nothing, so the next start checks.
func TestQuittingDuringACheckRecordsNothing(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		box := &settingsBox{u: engine.Updates{Check: true}}
		ctx, cancel := context.WithCancel(context.Background())
		started := make(chan struct{})
		c := &Checker{Version: "1.2.0", Dir: dir, Settings: box.get, Fetch: func(ctx context.Context, _ string, _ bool) (Release, error) {
			close(started)
			<-ctx.Done()
			return Release{}, errors.New("cancelled")
		}}
		done := make(chan struct{})
		go func() { c.Run(ctx); close(done) }()
		time.Sleep(FirstDelay)
		<-started
		cancel()
		<-done
		if st, _ := LoadState(dir); !st.CheckedAt.IsZero() {
			t.Fatalf("a check cut short by quitting was recorded: %+v", st)
		}
	})
}
