package run

import (
	"context"
	"fmt"
	"time"

	"github.com/clanker-desktop/clanker/app/diag"
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/sqlite"
)

// DiagnosticsReport gathers what the store knows (settings, every conversation, the applied
// migrations, a past recovery) with the engine's snapshot and builds the raw report. The API
// key is never read here; callers pass the report through diag.Sanitize or diag.Unsanitized
// with the key, which scrubs it wherever it might appear.
func DiagnosticsReport(ctx context.Context, s *sqlite.Store, snap engine.Snapshot) (diag.Report, error) {
	in := diag.Input{Now: time.Now(), Engine: snap}
	st, err := s.Settings(ctx)
	if err != nil {
		in.Notes = append(in.Notes, "settings: "+err.Error())
	}
	in.Settings = st
	if in.Conversations, err = s.Conversations(ctx); err != nil {
		return diag.Report{}, fmt.Errorf("diagnostics: %w", err)
	}
	if ms, err := s.AppliedMigrations(ctx); err == nil {
		in.Migrations = ms
	}
	if r := s.Recovery(); r != nil {
		in.Notes = append(in.Notes, "database recovered at "+r.At.UTC().Format(time.RFC3339)+": "+r.Reason+"; old file kept at "+r.MovedTo)
	}
	return diag.Build(in), nil
}
