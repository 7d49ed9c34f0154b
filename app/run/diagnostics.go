package run

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
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

// DiagnosticsJSON is `clanker diag`: the sanitised report of the stored data as JSON, with the
// API key scrubbed wherever it might appear. The engine does not run in that process, so the
// report says there is no live page or conversation state. A non-empty logFile is named in the
// report so a user asked for the log knows which file to attach.
func DiagnosticsJSON(ctx context.Context, s *sqlite.Store, version, logFile string, log *slog.Logger) ([]byte, error) {
	d, err := DiagnosticsReport(ctx, s, engine.Snapshot{})
	if err != nil {
		return nil, err
	}
	d.AppVersion = version
	if logFile != "" {
		if d.Fields == nil {
			d.Fields = map[string]string{}
		}
		d.Fields["logFile"] = logFile
	}
	if note := notifyNote(readNotifyState(filepath.Dir(s.Path()))); note != "" {
		d.Notes = append(d.Notes, note)
	}
	d.Notes = append(d.Notes, "Taken by `clanker diag` from the stored data: the engine does not run in this process, so there is no live page or conversation state.")
	key, _, err := s.APIKey(ctx)
	if err != nil && log != nil {
		log.Warn("the API key could not be read; it is still never printed", "err", err)
	}
	return diag.JSON(diag.Sanitize(d, key))
}
