package bridgetest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	protocol "github.com/clanker-desktop/clanker/app/page"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// These tests hold the bridge to issue 27.7, bridge side: the self-test is kept current and
// says which selectors decide who said what or which rows are new.

// selfTests lists the self_test events after mark.
func (h *host) selfTests(mark int) []protocol.SelfTest {
	var out []protocol.SelfTest
	for _, e := range h.since(mark) {
		if s, ok := e.Event.(protocol.SelfTest); ok {
			out = append(out, s)
		}
	}
	return out
}

func failing(st protocol.SelfTest) []string {
	var keys []string
	for _, r := range st.Results {
		if !r.OK {
			keys = append(keys, r.Key)
		}
	}
	return keys
}

func selfTestRuns(t *testing.T, h *host) int {
	t.Helper()
	var s struct {
		Runs int `json:"selfTestRuns"`
	}
	if err := json.Unmarshal(h.mustOK(protocol.Stats{}), &s); err != nil {
		t.Fatal(err)
	}
	return s.Runs
}

// The lines that decide who said what or which rows are new are marked critical: the rows,
// their ids, the labels that name the sender, the pane. The others are not.
func TestSelfTestMarksTheSelectorsThatDecideWhoSaidWhatAndWhatIsNew(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	st := h.waitFor(0, "self_test", minWait, func(e protocol.Event) bool { _, ok := e.(protocol.SelfTest); return ok }).(protocol.SelfTest)
	var critical []string
	for _, r := range st.Results {
		if r.Critical {
			critical = append(critical, r.Key)
		}
		if !r.OK {
			t.Errorf("self-test line %s failed on the healthy fixture: %+v", r.Key, r)
		}
	}
	slices.Sort(critical)
	if want := []string{"messageCore", "messageId", "messagePane", "senderLabel"}; !slices.Equal(critical, want) {
		t.Errorf("critical lines %v, want %v", critical, want)
	}
}

// The self-test runs again by itself: a page whose sender labels go is reported failing (a
// critical line) without anyone asking, the same outcome is not sent again, and once the page
// is back the passing outcome follows a structural change, without waiting for the timer.
func TestSelfTestIsReRunAndSentWhenItsOutcomeChanges(t *testing.T) {
	h, _ := openFixture(t, "/web/conversations/CONV_A", atDocumentStart)
	h.waitConversation(0, "CONV_A")
	h.waitFor(0, "the first self_test", minWait, func(e protocol.Event) bool { _, ok := e.(protocol.SelfTest); return ok })
	h.mustOK(protocol.Configure{SelfTestEveryMs: 300})
	m := h.mark()
	// A redesign moves the label: no text part carries an aria-label any more.
	eval(t, h.ctx, `(function(){ document.querySelectorAll('mws-text-message-part').forEach(function(p){
		p.setAttribute('data-label', p.getAttribute('aria-label')); p.removeAttribute('aria-label'); }); return 1; })()`, nil)
	bad := h.waitFor(m, "a failing self_test", minWait, func(e protocol.Event) bool {
		s, ok := e.(protocol.SelfTest)
		return ok && slices.Contains(failing(s), "senderLabel")
	}).(protocol.SelfTest)
	for _, r := range bad.Results {
		if r.Key == "senderLabel" && !r.Critical {
			t.Errorf("senderLabel failed but is not marked critical: %+v", r)
		}
	}
	// The timer keeps running the test; an unchanged outcome is not sent again.
	runs := selfTestRuns(t, h)
	testkit.WaitFor(t, minWait, "three more runs", func() (bool, string) { return selfTestRuns(t, h) >= runs+3, "" })
	if n := len(h.selfTests(m)); n != 1 {
		t.Errorf("%d self_test events for one outcome, want 1: %s", n, summary(h.since(m)))
	}
	// The timer is slowed to ten minutes: only the structural change can bring the news.
	h.mustOK(protocol.Configure{SelfTestEveryMs: 600000})
	m = h.mark()
	eval(t, h.ctx, `(function(){ document.querySelectorAll('mws-text-message-part').forEach(function(p){
		p.setAttribute('aria-label', p.getAttribute('data-label')); });
		fx.append({id:'back', label: fx.L('Jane Doe','labels are back'), text:'labels are back'}); return 1; })()`, nil)
	good := h.waitFor(m, "a passing self_test", minWait, func(e protocol.Event) bool {
		s, ok := e.(protocol.SelfTest)
		return ok && len(failing(s)) == 0
	}).(protocol.SelfTest)
	if good.State != "conversation" {
		t.Errorf("self_test state %q", good.State)
	}
	// An empty conversation is no drift: lines about rows are left out, not failed.
	m = h.mark()
	eval(t, h.ctx, `fx.data.CONV_E = {header: ['Nobody'], rows: []}; fx.open('CONV_E'), 1`, nil)
	h.mustOK(protocol.RunSelfTest{})
	empty := h.waitFor(m, "the self_test of an empty conversation", minWait, func(e protocol.Event) bool {
		s, ok := e.(protocol.SelfTest)
		return ok && s.State == "conversation"
	}).(protocol.SelfTest)
	if f := failing(empty); len(f) != 0 {
		t.Errorf("an empty conversation failed the self-test lines %s", strings.Join(f, ","))
	}
}
