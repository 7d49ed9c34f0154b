package engine

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Behaviour 1: no stored mode means Deactivated, and Deactivated never asks the model.
func TestUnknownConversationIsDeactivatedAndNeverAsksTheModel(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.open("c1", in("Ann", "hello"))
		if got := h.snap().Foreground.Mode; got != ModeDeactivated {
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
		h := newHarnessKey(t, false, func(s *Settings) { s.Model = "" })
		h.store.setMode("c1", ModeActive)
		h.open("c1", in("Ann", "hi"))
		if got := h.snap().Foreground.Mode; got != ModeUninitialized {
			t.Fatalf("want uninitialized while settings are incomplete, got %q", got)
		}
		h.send(SetMode{Mode: ModeAvailable, Source: "menu"})
		h.receive("c1", in("Ann", "hey clanker"))
		h.wait(time.Minute)
		h.wantRequests(0, "uninitialized")
		h.wantSent("uninitialized")
		if h.store.mode("c1") != ModeActive {
			t.Fatalf("a refused mode change must not touch the stored mode, got %q", h.store.mode("c1"))
		}
		var banner, toast bool
		for _, c := range h.page.commands(CmdBanner) {
			banner = banner || (c.Key == BannerConfig && strings.Contains(c.Text, "an API key and a model"))
		}
		for _, c := range h.page.commands(CmdToast) {
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
		h.store.setMode("c1", ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.send(SettingsChanged{Settings: testSettings(), HasAPIKey: true})
		if got := h.snap().Foreground.Mode; got != ModeActive {
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
		h.llm.set(0, func(req LLMRequest) (Reply, error) {
			if req.Kind != RequestActivation {
				t.Errorf("want an activation request, got %q", req.Kind)
			}
			return Reply{Text: "Hey all, Clanker here!"}, nil
		})
		h.open("c1", in("Ann", "hi"))
		h.send(SetMode{Mode: ModeAvailable, Source: "menu"})
		h.send(SetMode{Mode: ModeActive, Source: "menu"})
		h.send(SetMode{Mode: ModeActive, Source: "menu"}) // unchanged: ignored
		h.send(SetMode{Mode: ModeDeactivated, Source: "menu"})
		h.wantSent("announcements",
			"c1|"+AvailableText,
			"c1|[clanker] Hey all, Clanker here!",
			"c1|"+DeactivatedText)
		h.store.setMode("c1", ModeActive)
		h.open("c2", in("Bob", "yo"))
		h.open("c1")
		h.wantSent("restoring a stored mode",
			"c1|"+AvailableText,
			"c1|[clanker] Hey all, Clanker here!",
			"c1|"+DeactivatedText)
		if got := h.snap().Foreground.Mode; got != ModeActive {
			t.Fatalf("want the stored mode restored on return, got %q", got)
		}
	})
}

func TestActivationFallsBackWhenTheModelFailsOrAnswersNonsense(t *testing.T) {
	for name, reply := range map[string]func(LLMRequest) (Reply, error){
		"server error": func(LLMRequest) (Reply, error) {
			return Reply{}, &LLMError{Class: ErrServer, Status: 500, UserText: "API server error (500)."}
		},
		"json text": func(LLMRequest) (Reply, error) { return Reply{Text: `{"response": "hi"`}, nil },
		"silence":   func(LLMRequest) (Reply, error) { return Reply{}, nil },
	} {
		t.Run(name, func(t *testing.T) {
			run(t, func(t *testing.T) {
				h := newHarness(t)
				h.llm.set(0, reply)
				h.open("c1", in("Ann", "hi"))
				h.send(SetMode{Mode: ModeActive})
				h.wantSent("fallback greeting", "c1|"+ActiveFallbackText)
			})
		})
	}
}

func TestActivationWhileARequestIsInFlightUsesTheFallbackAtOnce(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.llm.set(time.Minute, nil)
		h.store.setMode("c1", ModeAvailable)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "clank?"))
		h.wait(time.Second) // timer fired, request in flight
		h.wantRequests(1, "mention")
		h.send(SetMode{Mode: ModeActive})
		h.wantSent("busy model", "c1|"+ActiveFallbackText)
	})
}

// Behaviour 17 (engine side): auth and quota failures deactivate silently and say so in a banner.
func TestAuthOrQuotaFailureDeactivatesWithoutSendingAnything(t *testing.T) {
	for _, class := range []ErrorClass{ErrAuth, ErrQuota} {
		t.Run(string(class), func(t *testing.T) {
			run(t, func(t *testing.T) {
				h := newHarness(t)
				h.llm.set(0, func(LLMRequest) (Reply, error) {
					return Reply{}, &LLMError{Class: class, Status: 401, UserText: "Invalid API key. Check your configuration."}
				})
				h.store.setMode("c1", ModeActive)
				h.open("c1", in("Ann", "hi"))
				h.receive("c1", in("Ann", "what's up"))
				h.wait(5 * time.Second)
				h.wantRequests(1, "one failing request")
				h.wantSent("after an auth failure")
				if h.store.mode("c1") != ModeDeactivated {
					t.Fatalf("want the stored mode deactivated, got %q", h.store.mode("c1"))
				}
				var ok bool
				for _, c := range h.page.commands(CmdBanner) {
					ok = ok || (c.Key == BannerDeactivated && strings.HasSuffix(c.Text, "Clanker has been deactivated."))
				}
				if !ok {
					t.Fatalf("want a banner ending %q, got %+v", "Clanker has been deactivated.", h.page.commands(CmdBanner))
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
		h.store.setMode("c1", ModeActive)
		h.store.setMode("c2", ModeAvailable)
		h.store.setMode("c3", ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.send(DeactivateAll{})
		for _, id := range []ConversationID{"c1", "c2", "c3"} {
			if h.store.mode(id) != ModeDeactivated {
				t.Fatalf("want %s deactivated, got %q", id, h.store.mode(id))
			}
		}
		h.wantSent("foreground announcement", "c1|"+DeactivatedText)
	})
}

// Behaviour 20: automated (all-digit) conversations are never processed and cannot be switched on.
func TestAutomatedConversationIsNeverProcessedAndCannotBeSwitchedOn(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		h.store.setMode("bank", ModeActive)
		h.open("bank", in("72975", "Your code is 1234"))
		if s := h.snap().Foreground; !s.Automated || s.Mode != ModeDeactivated {
			t.Fatalf("want automated and deactivated, got automated=%v mode=%q", s.Automated, s.Mode)
		}
		h.send(SetMode{Mode: ModeActive})
		h.receive("bank", in("72975", "clanker your code is 999"))
		h.wait(time.Minute)
		h.wantRequests(0, "automated conversation")
		h.wantSent("automated conversation")
		var flagged bool
		for _, c := range h.page.commands(CmdSetAutomated) {
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
		h.store.mu.Lock()
		h.store.failSave = true
		h.store.mu.Unlock()
		h.send(SetMode{Mode: ModeActive})
		if got := h.snap().Foreground.Mode; got != ModeDeactivated {
			t.Fatalf("store-first: want the mode unchanged when saving fails, got %q", got)
		}
		h.wantSent("unsaved mode change")
	})
}

func TestInvalidEventsAreRejectedWithAClearError(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		cases := map[string]Event{
			"empty message id":   MessageAdded{Conversation: "c1", Message: Message{Text: "x"}},
			"bad mode":           SetMode{Mode: "turbo"},
			"bad quiet hours":    SettingsChanged{Settings: Settings{QuietStartHour: 25, HistorySize: 20, InactiveMode: InactiveIgnore, NewsMaxSearches: 1}},
			"no conversation":    ConversationOpened{},
			"bad direction":      MessageAdded{Conversation: "c1", Message: Message{ID: "a", Direction: 7}},
			"command without id": CommandResult{},
		}
		for name, ev := range cases {
			err := h.e.Send(ev)
			if err == nil {
				t.Errorf("%s: want an error, got nil", name)
				continue
			}
			var target *LLMError
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
		h := newHarness(t, func(s *Settings) { s.RelaxedResponsiveness = false })
		h.llm.set(0, func(LLMRequest) (Reply, error) { return Reply{Text: "hello, Clanker here"}, nil })
		h.store.setMode("c1", ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.setDraft("c1", true)
		h.send(SetMode{Mode: ModeDeactivated})
		h.send(SetMode{Mode: ModeAvailable})
		h.setDraft("c1", false)
		h.wait(5 * time.Second)
		h.wantSent("only the notice of the mode now in force", "c1|"+AvailableText)

		h.setDraft("c1", true)
		h.send(SetMode{Mode: ModeActive}) // the greeting comes back and waits behind the draft
		h.wait(time.Second)
		h.send(SetMode{Mode: ModeDeactivated})
		h.setDraft("c1", false)
		h.wait(5 * time.Second)
		h.wantSent("the greeting is dropped once the conversation is deactivated", "c1|"+AvailableText, "c1|"+DeactivatedText)
	})
}

// A spent monthly budget (checked by the LLM side before a request) switches Clanker off in
// every stored conversation, with a banner and without a word into any chat.
func TestSpentBudgetDeactivatesEveryConversationSilently(t *testing.T) {
	run(t, func(t *testing.T) {
		h := newHarness(t)
		const text = "Monthly token budget reached (1200 of 1000 tokens). Clanker has been deactivated."
		h.llm.set(0, func(LLMRequest) (Reply, error) {
			return Reply{}, &LLMError{Class: ErrBudget, UserText: text}
		})
		h.store.setMode("c1", ModeActive)
		h.store.setMode("c2", ModeAvailable)
		h.store.setMode("c3", ModeActive)
		h.open("c1", in("Ann", "hi"))
		h.receive("c1", in("Ann", "what's up"))
		h.wait(5 * time.Second)
		h.wantRequests(1, "the request the budget gate refused")
		h.wantSent("after the budget was spent")
		for _, id := range []ConversationID{"c1", "c2", "c3"} {
			if h.store.mode(id) != ModeDeactivated {
				t.Fatalf("want %s deactivated, got %q", id, h.store.mode(id))
			}
		}
		var ok bool
		for _, c := range h.page.commands(CmdBanner) {
			ok = ok || (c.Key == BannerDeactivated && c.Text == text)
		}
		if !ok {
			t.Fatalf("want the budget banner %q, got %+v", text, h.page.commands(CmdBanner))
		}
		h.receive("c1", in("Ann", "hello?"))
		h.wait(time.Minute)
		h.wantRequests(1, "deactivated after the budget was spent")
	})
}
