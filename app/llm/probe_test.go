package llm

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/tests/fakellm"
)

// TestProbeListsModelsOnOneLineSorted checks the names the settings window offers: sorted,
// each on one line, and nothing with the wrong key.
func TestProbeListsModelsOnOneLineSorted(t *testing.T) {
	srv, base := fakellm.StartNew(fakellm.Config{APIKey: "sk-right", Models: []string{"zeta", "alpha\nbeta", "  "}})
	t.Cleanup(srv.Close)
	p := Probe{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if got, want := p.ListModels(context.Background(), base, "sk-right"), []string{"alpha beta", "zeta"}; !slices.Equal(got, want) {
		t.Errorf("ListModels = %q; want %q", got, want)
	}
	if got := p.ListModels(context.Background(), base, "sk-wrong"); got != nil {
		t.Errorf("ListModels with a wrong key = %q; want none", got)
	}
}

// TestProbePingReportsAWrongKeyAsTheClientClassifiesIt checks that Test connection hears
// the same error class and sentence a chat would.
func TestProbePingReportsAWrongKeyAsTheClientClassifiesIt(t *testing.T) {
	srv, base := fakellm.StartNew(fakellm.Config{APIKey: "sk-right"})
	t.Cleanup(srv.Close)
	p := Probe{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	srv.Enqueue(fakellm.JSONReply("hello", ""))
	if err := p.Ping(context.Background(), base, "sk-right", "fake-model"); err != nil {
		t.Fatalf("Ping with the right key: %v", err)
	}
	err := p.Ping(context.Background(), base, "sk-wrong", "fake-model")
	var le *engine.LLMError
	if !errors.As(err, &le) || le.Class != engine.ErrAuth || !strings.Contains(strings.ToLower(le.UserText), "key") {
		t.Fatalf("Ping with a wrong key = %v; want an authentication LLMError that mentions the key", err)
	}
}
