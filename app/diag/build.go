package diag

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Input is what a report is built from: domain data only, gathered by app/run from the store
// and the engine. It has no field for the API key, so a report cannot carry it even before
// Sanitize or Unsanitized scrubs it.
type Input struct {
	Now      time.Time
	Settings engine.Settings
	// Conversations are the stored conversations, most recently seen first.
	Conversations []engine.Conversation
	// Engine is the engine's live state; the zero value when the engine does not run here.
	Engine engine.Snapshot
	// Migrations are the applied schema migrations.
	Migrations []string
	// Notes are lines to add as they are (a settings read failure, a recovered database).
	Notes []string
}

// Build assembles the raw report: the settings as display strings, every stored
// conversation's mode, memory and last processed message, the foreground conversation's live
// state (first, when it was never stored), and the engine's fields. Callers pass the result
// through Sanitize or Unsanitized with the API key before showing or exporting it.
func Build(in Input) Report {
	out := Report{GeneratedAt: in.Now, Fields: map[string]string{}, UserName: in.Settings.UserName,
		Settings: settingsStrings(in.Settings), Notes: append([]string(nil), in.Notes...)}
	snap := in.Engine
	fg := snap.Foreground
	sawForeground := false
	for _, c := range in.Conversations {
		dc := ConversationReport{
			ID: string(c.ID), Name: c.Name, Mode: string(c.Mode), ModelOverride: c.ModelOverride,
			Summary: c.Memory.Summary, Customization: c.Memory.Customization, Profiles: c.Memory.Profiles,
			Fields: map[string]string{"lastSeen": timeString(c.LastSeen)},
		}
		if lp := c.LastProcessed; lp != (engine.MessageRef{}) {
			dc.LastMessage = &MessageReport{ID: lp.ID, Sender: lp.Sender, Text: lp.Text,
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
		dc := ConversationReport{ID: string(fg.ID), Mode: string(engine.ModeDeactivated), Fields: map[string]string{"stored": "false"}}
		addForeground(&dc, fg)
		out.Conversations = append([]ConversationReport{dc}, out.Conversations...)
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
	if len(snap.VisitQueue) > 0 {
		ids := make([]string, len(snap.VisitQueue))
		for i, id := range snap.VisitQueue {
			ids[i] = string(id)
		}
		f["visitQueue"] = strings.Join(ids, ", ")
	}
	if snap.WaitingForDraft {
		f["waitingForDraft"] = "true"
	}
	if snap.Visiting != "" {
		f["visiting"] = fmt.Sprintf("%s (%s, then back to %s)", snap.Visiting, snap.VisitPhase, snap.ReturnTo)
	}
	if len(in.Migrations) > 0 {
		f["migrations"] = strings.Join(in.Migrations, ", ")
	}
	return out
}

func addForeground(dc *ConversationReport, fg *engine.ForegroundSnapshot) {
	if dc.Fields == nil {
		dc.Fields = map[string]string{}
	}
	f := dc.Fields
	f["onScreen"] = "true"
	f["effectiveMode"] = string(fg.Mode)
	f["actingMode"] = string(fg.Acting)
	f["announcedMode"] = string(fg.Announced)
	f["noticeOwed"] = strconv.FormatBool(fg.NoticeOwed)
	f["answerOwed"] = strconv.FormatBool(fg.OwedID != "")
	f["engineStoredMode"] = string(fg.StoredMode)
	f["automated"] = strconv.FormatBool(fg.Automated)
	f["visibleMessages"] = strconv.Itoa(fg.Messages)
	f["participants"] = strconv.Itoa(fg.Participants)
	f["lastProcessedId"] = fg.LastProcessedID
	f["userDraft"] = strconv.FormatBool(fg.Draft)
	f["switching"] = strconv.FormatBool(fg.Switching)
	f["awaitingHuman"] = strconv.FormatBool(fg.AwaitingHuman)
	f["openedByVisit"] = strconv.FormatBool(fg.OpenedByVisit)
	if fg.Pending {
		f["replyPendingIn"] = fg.PendingFiresIn.Round(time.Millisecond).String()
	}
}

// settingsStrings renders the settings as display strings by their JSON names. Settings holds
// no API key (that lives in the keychain or its own row), so nothing secret can appear here.
func settingsStrings(st engine.Settings) map[string]string {
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
