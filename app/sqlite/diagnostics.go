package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/clanker-desktop/clanker/app/diag"
	"github.com/clanker-desktop/clanker/app/engine"
)

// Diagnostics assembles the diagnostics snapshot from what is stored (settings, every
// conversation's mode and memory, migrations, a past recovery) and the engine's live
// snapshot. It lives here because it is the one place that may import both app/engine and
// app/diag without a cycle. The result is raw: callers must pass it through diag.Sanitize or
// diag.Unsanitized with the API key before showing or exporting it. The API key itself is
// never read here, so it cannot leak even if a caller forgets.
func (s *Store) Diagnostics(ctx context.Context, snap engine.Snapshot) (diag.Snapshot, error) {
	out := diag.Snapshot{GeneratedAt: s.now(), Fields: map[string]string{}}
	st, err := s.Settings(ctx)
	if err != nil {
		out.Notes = append(out.Notes, "settings: "+err.Error())
	}
	out.UserName = st.UserName
	out.Settings = settingsStrings(st)

	convs, err := s.Conversations(ctx)
	if err != nil {
		return diag.Snapshot{}, fmt.Errorf("diagnostics: %w", err)
	}
	fg := snap.Foreground
	sawForeground := false
	for _, c := range convs {
		dc := diag.Conversation{
			ID: string(c.ID), Mode: string(c.Mode), ModelOverride: c.ModelOverride,
			Summary: c.Memory.Summary, Customization: c.Memory.Customization, Profiles: c.Memory.Profiles,
			Fields: map[string]string{"lastSeen": timeString(c.LastSeen)},
		}
		if lp := c.LastProcessed; lp != (engine.MessageRef{}) {
			dc.LastMessage = &diag.Message{ID: lp.ID, Sender: lp.Sender, Text: lp.Text,
				IsClanker: strings.HasPrefix(lp.Text, strings.TrimSpace(engine.Prefix))}
		}
		dc.Fields["lastMessageAt"] = timeString(c.LastMessageAt)
		dc.Fields["lastNewsCheck"] = timeString(c.LastNewsCheck)
		if fg != nil && fg.ID == c.ID {
			sawForeground = true
			addForeground(&dc, fg)
		}
		out.Conversations = append(out.Conversations, dc)
	}
	if fg != nil && !sawForeground {
		dc := diag.Conversation{ID: string(fg.ID), Mode: string(engine.ModeDeactivated), Fields: map[string]string{"stored": "false"}}
		addForeground(&dc, fg)
		out.Conversations = append([]diag.Conversation{dc}, out.Conversations...)
	}

	f := out.Fields
	f["pageState"] = string(snap.PageState)
	f["configured"] = strconv.FormatBool(snap.Configured)
	if len(snap.Missing) > 0 {
		f["missing"] = strings.Join(snap.Missing, ", ")
	}
	f["windowHidden"] = strconv.FormatBool(snap.WindowHidden)
	f["generation"] = strconv.FormatUint(snap.Generation, 10)
	f["errorStreak"] = strconv.Itoa(snap.ErrorStreak)
	f["queuedSends"] = strconv.Itoa(snap.QueuedSends)
	f["sending"] = strconv.FormatBool(snap.Sending)
	f["sidebarLoaded"] = strconv.FormatBool(snap.SidebarLoaded)
	if in := snap.InFlight; in != nil {
		f["inFlight"] = fmt.Sprintf("%s request for %s (generation %d)", in.Kind, in.Conversation, in.Generation)
	}
	if snap.DeferredFor != "" {
		f["deferredReplyFor"] = string(snap.DeferredFor)
	}
	if len(snap.SidebarQueue) > 0 {
		ids := make([]string, len(snap.SidebarQueue))
		for i, id := range snap.SidebarQueue {
			ids[i] = string(id)
		}
		f["sidebarQueue"] = strings.Join(ids, ", ")
	}
	if snap.Visiting != "" {
		f["visiting"] = fmt.Sprintf("%s (%s, then back to %s)", snap.Visiting, snap.VisitPhase, snap.ReturnTo)
	}
	if ms, err := s.AppliedMigrations(ctx); err == nil {
		f["migrations"] = strings.Join(ms, ", ")
	}
	if r := s.Recovery(); r != nil {
		out.Notes = append(out.Notes, "database recovered at "+timeString(r.At)+": "+r.Reason+"; old file kept at "+r.MovedTo)
	}
	return out, nil
}

func addForeground(dc *diag.Conversation, fg *engine.ForegroundSnapshot) {
	if dc.Fields == nil {
		dc.Fields = map[string]string{}
	}
	f := dc.Fields
	f["onScreen"] = "true"
	f["effectiveMode"] = string(fg.Mode)
	f["engineStoredMode"] = string(fg.StoredMode)
	f["automated"] = strconv.FormatBool(fg.Automated)
	f["visibleMessages"] = strconv.Itoa(fg.Messages)
	f["participants"] = strconv.Itoa(fg.Participants)
	f["lastProcessedId"] = fg.LastProcessedID
	f["userDraft"] = strconv.FormatBool(fg.Draft)
	f["switching"] = strconv.FormatBool(fg.Switching)
	f["awaitingHuman"] = strconv.FormatBool(fg.AwaitingHuman)
	f["openedViaSidebar"] = strconv.FormatBool(fg.OpenedViaSidebar)
	if fg.Pending {
		f["replyPendingIn"] = fg.PendingFiresIn.Round(time.Millisecond).String()
	}
}

// settingsStrings renders the settings as display strings by their JSON names. The settings
// type holds no API key (that lives in the keychain or its own row), so nothing secret can
// appear here.
func settingsStrings(st any) map[string]string {
	b, err := json.Marshal(st)
	if err != nil {
		return map[string]string{"error": err.Error()}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return map[string]string{"error": err.Error()}
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[k] = s
		} else {
			out[k] = string(v)
		}
	}
	return out
}

func timeString(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
