package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Behaviour 8: switching conversations cancels the pending timer.
func TestSwitchingConversationCancelsThePendingTimer(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "pending"))
		h.wait(300 * time.Millisecond)
		h.open("c2", in("Bob", "other"))
		h.wait(time.Minute)
		h.wantRequests(0, "timer cancelled by the switch")
	})
}

// Behaviour 8: deactivating cancels the pending timer and supersedes the request in flight.
func TestDeactivatingCancelsPendingAndSupersedesInFlight(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.llm.Set(5*time.Second, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "too late"}, nil })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "question"))
		h.wait(2500 * time.Millisecond) // in flight
		h.receive("c1", in("Ann", "another"))
		h.send(engine.SetMode{Mode: engine.ModeDeactivated})
		h.wait(time.Minute)
		h.wantRequests(1, "nothing new after deactivation")
		h.wantSent("only the farewell", "c1|"+engine.DeactivatedText)
	})
}

// Behaviour 9 and the deferred-reply rule: a late answer waits for its conversation and is
// delivered only if nothing newer was said there.
func TestDeferredReplyIsDeliveredOnReturnOnlyIfTheNewestMessageIsUnchanged(t *testing.T) {
	for _, changed := range []bool{false, true} {
		name := map[bool]string{false: "unchanged", true: "changed"}[changed]
		t.Run(name, func(t *testing.T) {
			run(t, func(t *testing.T) {
				h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
				h.llm.Set(10*time.Second, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "late answer"}, nil })
				h.store.SetMode("c1", engine.ModeActive)
				first, q := in("Ann", "hi"), in("Ann", "question")
				h.open("c1", first)
				h.receive("c1", q)
				h.wait(2500 * time.Millisecond)
				h.open("c2", in("Bob", "meanwhile"))
				h.wait(30 * time.Second) // the answer arrives while c2 is on screen
				h.wantSent("while away")
				if s := h.snap(); s.DeferredFor != "c1" {
					t.Fatalf("want a deferred reply for c1, got %q", s.DeferredFor)
				}
				msgs := []engine.Message{first, q}
				if changed {
					msgs = append(msgs, in("Cat", "new while away"))
				}
				h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{}, nil })
				h.open("c1", msgs...)
				h.wait(10 * time.Second)
				if changed {
					h.wantSent("stale deferred reply")
				} else {
					h.wantSent("deferred reply", "c1|[clanker] late answer")
				}
			})
		})
	}
}

func TestSupersededResultInTheSameConversationIsDropped(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		n := 0
		h.llm.Set(3*time.Second, func(engine.LLMRequest) (engine.Reply, error) {
			n++
			return engine.Reply{Text: []string{"old", "new"}[min(n-1, 1)]}, nil
		})
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "one"))
		h.wait(2500 * time.Millisecond) // first request in flight
		h.receive("c1", in("Ann", "two"))
		h.wait(time.Minute)
		reqs := h.wantRequests(2, "a new message supersedes the first request")
		if reqs[1].Generation <= reqs[0].Generation {
			t.Fatalf("want a newer generation, got %d then %d", reqs[0].Generation, reqs[1].Generation)
		}
		h.wantSent("only the newest answer", "c1|[clanker] new")
	})
}

func TestOnlyOneRequestIsInFlightAtATime(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.llm.Set(20*time.Second, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{}, nil })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "one"))
		h.wait(2500 * time.Millisecond)
		h.receive("c1", in("Ann", "two"))
		h.wait(10 * time.Second)
		h.wantRequests(1, "second timer fired while the first request runs")
		h.wait(11 * time.Second)
		h.wantRequests(2, "after the first request finished")
	})
}

// Results are saved under the conversation they were computed for, even when the user has
// switched to another conversation while the request ran.
func TestContextUpdatesAreSavedUnderTheirOwnConversation(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.llm.Set(5*time.Second, func(req engine.LLMRequest) (engine.Reply, error) {
			return engine.Reply{Update: engine.ContextUpdate{Summary: ptr("about " + string(req.Conversation))}}, nil
		})
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "remember this"))
		h.wait(2500 * time.Millisecond)
		h.open("c2", in("Bob", "hey"))
		h.wait(time.Minute)
		h.store.Lock()
		defer h.store.Unlock()
		if u := h.store.Updates["c1"]; len(u) != 1 || *u[0].Summary != "about c1" {
			t.Fatalf("want c1's summary saved under c1, got %+v", u)
		}
		if u := h.store.Updates["c2"]; len(u) != 0 {
			t.Fatalf("want nothing saved under c2, got %+v", u)
		}
	})
}

// Behaviour 18 (engine side): which failures the user hears about.
func TestErrorToastsFollowTheStreakAndClassRules(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		var class engine.ErrorClass
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) {
			return engine.Reply{}, &engine.LLMError{Class: class, UserText: "text for " + string(class)}
		})
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		toasts := func() (n int) {
			for _, c := range h.page.Commands(engine.CmdToast) {
				if strings.HasPrefix(c.Text, "text for") {
					n++
				}
			}
			return n
		}
		for i, step := range []struct {
			class engine.ErrorClass
			want  int
		}{
			{engine.ErrRateLimit, 0}, {engine.ErrServer, 0}, {engine.ErrServer, 0}, {engine.ErrModel, 1}, {engine.ErrModel, 2},
		} {
			class = step.class
			h.receive("c1", in("Ann", "msg"))
			h.wait(3 * time.Second)
			if got := toasts(); got != step.want {
				t.Fatalf("step %d (%s): want %d toasts so far, got %d", i, step.class, step.want, got)
			}
		}
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{}, nil })
		h.receive("c1", in("Ann", "ok now"))
		h.wait(3 * time.Second)
		class = engine.ErrNetwork
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) {
			return engine.Reply{}, &engine.LLMError{Class: class, UserText: "text for net"}
		})
		h.receive("c1", in("Ann", "a"))
		h.wait(3 * time.Second)
		h.receive("c1", in("Ann", "b"))
		h.wait(3 * time.Second)
		if got := toasts(); got != 3 {
			t.Fatalf("want exactly one toast for a fresh network streak (3 in all), got %d", got)
		}
	})
}

// Behaviour 16 (engine side): an image request fetches the image and re-asks with it; an image
// that is not in the conversation is refused with a toast and nothing is posted.
func TestImageRequestsFetchTheImageAndReaskTheModel(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		src := "blob:https://messages.google.com/1234"
		h.page.Images[src] = []byte("jpegbytes")
		h.llm.Set(0, func(req engine.LLMRequest) (engine.Reply, error) {
			if req.Image != nil {
				return engine.Reply{Text: "nice cat", RequestImage: src}, nil
			}
			return engine.Reply{RequestImage: src}, nil
		})
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		m := in("Ann", "")
		m.Images = []engine.Image{{Src: src}}
		h.receive("c1", m)
		h.wait(5 * time.Second)
		reqs := h.wantRequests(2, "request and image follow-up")
		if reqs[1].Image == nil || string(reqs[1].Image.Data) != "jpegbytes" || reqs[1].Image.Src != src {
			t.Fatalf("want the follow-up to carry the fetched image, got %+v", reqs[1].Image)
		}
		h.wantSent("answer after seeing the image", "c1|[clanker] nice cat")

		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) {
			return engine.Reply{RequestImage: "https://evil.example/x.png"}, nil
		})
		h.receive("c1", in("Ann", "and now?"))
		h.wait(5 * time.Second)
		h.wantRequests(3, "a request for a foreign image")
		h.wantSent("nothing after a foreign image request", "c1|[clanker] nice cat")
		var toast bool
		for _, c := range h.page.Commands(engine.CmdToast) {
			toast = toast || strings.Contains(c.Text, "not in this conversation")
		}
		if !toast {
			t.Fatal("want an error toast for an image that is not in the conversation")
		}
	})
}

func TestNothingIsSentWhileThePageIsSignedOut(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.llm.Set(5*time.Second, nil)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "one"))
		h.wait(2500 * time.Millisecond)
		h.send(engine.PageStateChanged{State: engine.PageSignedOut})
		h.wait(time.Minute)
		h.wantSent("signed out")
	})
}

// imageThenAnswer asks for src on the first request and answers text on the follow-up.
func imageThenAnswer(src, text string) func(engine.LLMRequest) (engine.Reply, error) {
	return func(req engine.LLMRequest) (engine.Reply, error) {
		if req.Image != nil {
			return engine.Reply{Text: text}, nil
		}
		return engine.Reply{RequestImage: src}, nil
	}
}

func imageMessage(src string) engine.Message {
	m := in("Ann", "clanker, look")
	m.Images = []engine.Image{{Src: src}}
	return m
}

func TestImageFetchThatNeverAnswersTimesOutAndTheModelIsToldItIsUnavailable(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		src := "blob:https://messages.google.com/slow"
		h.page.HoldFetch = true
		h.llm.Set(0, imageThenAnswer(src, "I can't load that picture."))
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", imageMessage(src))
		h.wait(2 * time.Second) // past the flat delay: the model asked, the fetch hangs
		h.wantRequests(1, "the first request")
		if s := h.snap(); s.InFlight == nil || !s.InFlight.FetchingImage {
			t.Fatalf("want the request in flight and fetching its image, got %+v", s.InFlight)
		}
		h.wait(engine.ImageFetchTimeout)
		reqs := h.wantRequests(2, "the follow-up after the fetch timed out")
		if img := reqs[1].Image; img == nil || img.Src != src || len(img.Data) != 0 || !strings.Contains(img.Unavailable, "too long") {
			t.Fatalf("want the follow-up to say the image is unavailable, got %+v", img)
		}
		h.wantSent("the answer without the image", "c1|[clanker] I can't load that picture.")
		if s := h.snap(); s.InFlight != nil {
			t.Fatalf("want nothing in flight after the answer, got %+v", s.InFlight)
		}
	})
}

func TestFailedImageFetchStillGetsAnAnswerTellingTheModelWhy(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		src := "blob:https://messages.google.com/gone"
		h.llm.Set(0, imageThenAnswer(src, "That image didn't load for me."))
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", imageMessage(src)) // the fake page has no bytes for src
		h.wait(5 * time.Second)
		reqs := h.wantRequests(2, "request and follow-up")
		if img := reqs[1].Image; img == nil || img.Unavailable == "" {
			t.Fatalf("want the follow-up to carry the reason the image is unavailable, got %+v", img)
		}
		h.wantSent("the answer", "c1|[clanker] That image didn't load for me.")
	})
}

func TestSupersededImageFetchDoesNotHoldUpTheNewerMessage(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		src := "blob:https://messages.google.com/slow"
		h.page.HoldFetch = true
		h.llm.Set(0, func(req engine.LLMRequest) (engine.Reply, error) {
			last := req.History[len(req.History)-1]
			if len(last.Images) > 0 {
				return engine.Reply{RequestImage: src}, nil
			}
			return engine.Reply{Text: "answering the newer message"}, nil
		})
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", imageMessage(src))
		h.wait(2 * time.Second) // fetch hanging
		h.receive("c1", in("Ann", "never mind, what's for dinner?"))
		h.wait(2 * time.Second) // the newer message's flat delay
		h.wantRequests(2, "the newer message is asked at once, not after the fetch timeout")
		h.wantSent("the newer answer", "c1|[clanker] answering the newer message")
		h.wait(engine.ImageFetchTimeout)
		h.wantRequests(2, "no follow-up for the superseded image")
		h.wantSent("still only the newer answer", "c1|[clanker] answering the newer message")
	})
}
