package engine_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Behaviour 1: no stored mode means Deactivated, and Deactivated never asks the model.
func TestUnknownConversationIsDeactivatedAndNeverAsksTheModel(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.open("c1", in("Ann", "hello"))
		if got := h.snap().Foreground.Mode; got != engine.ModeDeactivated {
			t.Fatalf("want a new conversation to be deactivated, got %q", got)
		}
		h.receive("c1", in("Ann", "clanker, are you there?"))
		h.receive("c1", in("Ann", "anyone?"))
		h.wait(time.Minute)
		h.wantRequests(0, "deactivated conversation")
		h.wantSent("deactivated conversation")
	})
}

func TestUninitializedRefusesModeChangesAndSaysWhatIsMissing(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarnessKey(t, false, func(s *engine.Settings) { s.Model = "" })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		if got := h.snap().Foreground.Mode; got != engine.ModeUninitialized {
			t.Fatalf("want uninitialized while settings are incomplete, got %q", got)
		}
		h.send(engine.SetMode{Mode: engine.ModeAvailable, Source: "menu"})
		h.receive("c1", in("Ann", "hey clanker"))
		h.wait(time.Minute)
		h.wantRequests(0, "uninitialized")
		h.wantSent("uninitialized")
		if h.store.Mode("c1") != engine.ModeActive {
			t.Fatalf("a refused mode change must not touch the stored mode, got %q", h.store.Mode("c1"))
		}
		var banner, toast bool
		for _, c := range h.page.Commands(engine.CmdBanner) {
			banner = banner || (c.Key == engine.BannerConfig && strings.Contains(c.Text, "an API key and a model"))
		}
		for _, c := range h.page.Commands(engine.CmdToast) {
			toast = toast || strings.Contains(c.Text, "an API key and a model")
		}
		if !banner || !toast {
			t.Fatalf("want a banner and a toast naming the missing settings, got banner=%v toast=%v", banner, toast)
		}
	})
}

func TestCompletingTheSettingsRestoresTheStoredModeAtOnce(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarnessKey(t, false)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.send(engine.SettingsChanged{Settings: testSettings(), HasAPIKey: true})
		if got := h.snap().Foreground.Mode; got != engine.ModeActive {
			t.Fatalf("want the stored mode back as soon as settings are complete, without a reload, got %q", got)
		}
		h.receive("c1", in("Ann", "so"))
		h.wait(3 * time.Second)
		h.wantRequests(1, "active after configuration")
	})
}

// Behaviour 19: announcements on mode changes; a restored mode announces nothing.
func TestModeAnnouncementsAndSilentRestore(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.llm.Set(0, func(req engine.LLMRequest) (engine.Reply, error) {
			if req.Kind != engine.RequestActivation {
				t.Errorf("want an activation request, got %q", req.Kind)
			}
			return engine.Reply{Text: "Hey all, Clanker here!"}, nil
		})
		h.open("c1", in("Ann", "hi"))
		h.send(engine.SetMode{Mode: engine.ModeAvailable, Source: "menu"})
		h.send(engine.SetMode{Mode: engine.ModeActive, Source: "menu"})
		h.send(engine.SetMode{Mode: engine.ModeActive, Source: "menu"}) // unchanged: ignored
		h.send(engine.SetMode{Mode: engine.ModeDeactivated, Source: "menu"})
		h.wantSent("announcements",
			"c1|"+engine.AvailableText,
			"c1|[clanker] Hey all, Clanker here!",
			"c1|"+engine.DeactivatedText)
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c2", in("Bob", "yo"))
		h.open("c1")
		h.wantSent("restoring a stored mode",
			"c1|"+engine.AvailableText,
			"c1|[clanker] Hey all, Clanker here!",
			"c1|"+engine.DeactivatedText)
		if got := h.snap().Foreground.Mode; got != engine.ModeActive {
			t.Fatalf("want the stored mode restored on return, got %q", got)
		}
	})
}

func TestActivationFallsBackWhenTheModelFailsOrAnswersNonsense(t *testing.T) {
	for name, reply := range map[string]func(engine.LLMRequest) (engine.Reply, error){
		"server error": func(engine.LLMRequest) (engine.Reply, error) {
			return engine.Reply{}, &engine.LLMError{Class: engine.ErrServer, Status: 500, UserText: "API server error (500)."}
		},
		"json text": func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: `{"response": "hi"`}, nil },
		"silence":   func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{}, nil },
	} {
		t.Run(name, func(t *testing.T) {
			run(t, func(t *testing.T) {
				h := newHarness(t)
				h.llm.Set(0, reply)
				h.open("c1", in("Ann", "hi"))
				h.send(engine.SetMode{Mode: engine.ModeActive})
				h.wantSent("fallback greeting", "c1|"+engine.ActiveFallbackText)
			})
		})
	}
}

func TestActivationWhileARequestIsInFlightUsesTheFallbackAtOnce(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.llm.Set(time.Minute, nil)
		h.store.SetMode("c1", engine.ModeAvailable)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "clank?"))
		h.wait(time.Second) // timer fired, request in flight
		h.wantRequests(1, "mention")
		h.send(engine.SetMode{Mode: engine.ModeActive})
		h.wantSent("busy model", "c1|"+engine.ActiveFallbackText)
	})
}

// Behaviour 17 (engine side): auth and quota failures deactivate silently and say so in a banner.
func TestAuthOrQuotaFailureDeactivatesWithoutSendingAnything(t *testing.T) {
	for _, class := range []engine.ErrorClass{engine.ErrAuth, engine.ErrQuota} {
		t.Run(string(class), func(t *testing.T) {
			run(t, func(t *testing.T) {
				h := newHarness(t)
				h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) {
					return engine.Reply{}, &engine.LLMError{Class: class, Status: 401, UserText: "Invalid API key. Check your configuration."}
				})
				h.store.SetMode("c1", engine.ModeActive)
				h.open("c1", in("Ann", "hi"))
				h.receive("c1", in("Ann", "what's up"))
				h.wait(5 * time.Second)
				h.wantRequests(1, "one failing request")
				h.wantSent("after an auth failure")
				if h.store.Mode("c1") != engine.ModeDeactivated {
					t.Fatalf("want the stored mode deactivated, got %q", h.store.Mode("c1"))
				}
				var ok bool
				for _, c := range h.page.Commands(engine.CmdBanner) {
					ok = ok || (c.Key == engine.BannerDeactivated && strings.HasSuffix(c.Text, "Clanker has been deactivated."))
				}
				if !ok {
					t.Fatalf("want a banner ending %q, got %+v", "Clanker has been deactivated.", h.page.Commands(engine.CmdBanner))
				}
				h.receive("c1", in("Ann", "hello?"))
				h.wait(time.Minute)
				h.wantRequests(1, "deactivated after failure")
			})
		})
	}
}

// "Deactivate in all conversations" deactivates every stored conversation, not only the
// current one.
func TestDeactivateAllReallyDeactivatesEveryStoredConversation(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("c1", engine.ModeActive)
		h.store.SetMode("c2", engine.ModeAvailable)
		h.store.SetMode("c3", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.send(engine.DeactivateAll{})
		for _, id := range []engine.ConversationID{"c1", "c2", "c3"} {
			if h.store.Mode(id) != engine.ModeDeactivated {
				t.Fatalf("want %s deactivated, got %q", id, h.store.Mode(id))
			}
		}
		h.wantSent("foreground announcement", "c1|"+engine.DeactivatedText)
	})
}

// Behaviour 20: automated (all-digit) conversations are never processed and cannot be switched on.
func TestAutomatedConversationIsNeverProcessedAndCannotBeSwitchedOn(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.SetMode("bank", engine.ModeActive)
		h.open("bank", in("72975", "Your code is 1234"))
		if s := h.snap().Foreground; !s.Automated || s.Mode != engine.ModeDeactivated {
			t.Fatalf("want automated and deactivated, got automated=%v mode=%q", s.Automated, s.Mode)
		}
		h.send(engine.SetMode{Mode: engine.ModeActive})
		h.receive("bank", in("72975", "clanker your code is 999"))
		h.wait(time.Minute)
		h.wantRequests(0, "automated conversation")
		h.wantSent("automated conversation")
		var flagged bool
		for _, c := range h.page.Commands(engine.CmdSetAutomated) {
			flagged = flagged || (c.Conversation == "bank" && c.Text == "true")
		}
		if !flagged {
			t.Fatal("want the menus told the conversation is automated")
		}
	})
}

func TestModeChangeIsNotAppliedWhenItCannotBeSaved(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.open("c1", in("Ann", "hi"))
		h.store.Lock()
		h.store.FailSave = true
		h.store.Unlock()
		h.send(engine.SetMode{Mode: engine.ModeActive})
		if got := h.snap().Foreground.Mode; got != engine.ModeDeactivated {
			t.Fatalf("store-first: want the mode unchanged when saving fails, got %q", got)
		}
		h.wantSent("unsaved mode change")
	})
}

func TestInvalidEventsAreRejectedWithAClearError(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		cases := map[string]engine.Event{
			"empty message id":   engine.MessageAdded{Conversation: "c1", Message: engine.Message{Text: "x"}},
			"bad mode":           engine.SetMode{Mode: "turbo"},
			"bad quiet hours":    engine.SettingsChanged{Settings: engine.Settings{QuietStartHour: 25, HistorySize: 20, InactiveMode: engine.InactiveIgnore, NewsMaxSearches: 1}},
			"no conversation":    engine.ConversationOpened{},
			"bad direction":      engine.MessageAdded{Conversation: "c1", Message: engine.Message{ID: "a", Direction: 7}},
			"command without id": engine.CommandResult{},
		}
		for name, ev := range cases {
			err := h.e.Send(ev)
			if err == nil {
				t.Errorf("%s: want an error, got nil", name)
				continue
			}
			var target *engine.LLMError
			if errors.As(err, &target) || !strings.Contains(err.Error(), "rejected") {
				t.Errorf("%s: want a 'rejected ...' error, got %v", name, err)
			}
		}
	})
}

// Found by tests/chaos ("stale-announcement"): a notice held behind the user's draft must not be
// posted after the mode changed again.
func TestAnnouncementHeldBehindADraftIsDroppedWhenTheModeChangesAgain(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t, func(s *engine.Settings) { s.RelaxedResponsiveness = false })
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) { return engine.Reply{Text: "hello, Clanker here"}, nil })
		h.store.SetMode("c1", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.setDraft("c1", true)
		h.send(engine.SetMode{Mode: engine.ModeDeactivated})
		h.send(engine.SetMode{Mode: engine.ModeAvailable})
		h.setDraft("c1", false)
		h.wait(5 * time.Second)
		h.wantSent("only the notice of the mode now in force", "c1|"+engine.AvailableText)

		h.setDraft("c1", true)
		h.send(engine.SetMode{Mode: engine.ModeActive}) // the greeting comes back and waits behind the draft
		h.wait(time.Second)
		h.send(engine.SetMode{Mode: engine.ModeDeactivated})
		h.setDraft("c1", false)
		h.wait(5 * time.Second)
		h.wantSent("the greeting is dropped once the conversation is deactivated", "c1|"+engine.AvailableText, "c1|"+engine.DeactivatedText)
	})
}

// A spent monthly budget (checked by the LLM side before a request) switches Clanker off in
// every stored conversation, with a banner and without a word into any chat.
func TestSpentBudgetDeactivatesEveryConversationSilently(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		const text = "Monthly token budget reached (1200 of 1000 tokens). Clanker has been deactivated."
		h.llm.Set(0, func(engine.LLMRequest) (engine.Reply, error) {
			return engine.Reply{}, &engine.LLMError{Class: engine.ErrBudget, UserText: text}
		})
		h.store.SetMode("c1", engine.ModeActive)
		h.store.SetMode("c2", engine.ModeAvailable)
		h.store.SetMode("c3", engine.ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "what's up"))
		h.wait(5 * time.Second)
		h.wantRequests(1, "the request the budget gate refused")
		h.wantSent("after the budget was spent")
		for _, id := range []engine.ConversationID{"c1", "c2", "c3"} {
			if h.store.Mode(id) != engine.ModeDeactivated {
				t.Fatalf("want %s deactivated, got %q", id, h.store.Mode(id))
			}
		}
		var ok bool
		for _, c := range h.page.Commands(engine.CmdBanner) {
			ok = ok || (c.Key == engine.BannerDeactivated && c.Text == text)
		}
		if !ok {
			t.Fatalf("want the budget banner %q, got %+v", text, h.page.Commands(engine.CmdBanner))
		}
		h.receive("c1", in("Ann", "hello?"))
		h.wait(time.Minute)
		h.wantRequests(1, "deactivated after the budget was spent")
	})
}
