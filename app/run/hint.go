package run

import (
	"context"
	"sync"
	"time"
)

// PillHintName is the name under which the store remembers that the user is done with
// the pill hint (sqlite.Store.Seen).
const PillHintName = "pill_hint"

// PillHint is the one-time hint beside the status pill the first time a conversation
// shows a pill whose mode can be changed: nothing else tells a new user how to switch
// Clanker on, and every conversation starts Deactivated.
const PillHint = "Clanker stays out of this conversation until you switch it on here: " +
	"Available answers when someone writes \u201cClanker\u201d, Active reads along and joins in. " +
	"The tray icon, the Clanker menu and a right-click on the page switch it too."

// hint is the one-time hint the page shows now, by its store name ("" when none).
type hint struct {
	mu   sync.Mutex
	name string
}

// startHint shows text beside the status pill until the user is done with it, unless the
// store remembers that they already were (name is its sqlite.Store.Seen name). A demo can
// show its own guide the same way under its own name; one hint shows at a time.
func (a *App) startHint(name, text string) {
	ctx, cancel := context.WithTimeout(a.ctx, 5*time.Second)
	defer cancel()
	seen, err := a.store.Seen(ctx, name)
	if err != nil {
		a.log.Warn("could not read whether a hint was seen; not showing it", "hint", name, "err", err)
		return
	}
	if seen {
		return
	}
	a.hint.mu.Lock()
	a.hint.name = name
	a.hint.mu.Unlock()
	a.link.SetHint(text)
}

// hintDone ends the hint shown now for good: the user dismissed it or changed a mode
// (from the pill, the tray, the app menu or the right-click menu).
func (a *App) hintDone() {
	a.hint.mu.Lock()
	name := a.hint.name
	a.hint.name = ""
	a.hint.mu.Unlock()
	if name == "" {
		return
	}
	a.link.SetHint("")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.store.MarkSeen(ctx, name); err != nil {
		a.log.Warn("could not remember that the hint was seen; it may show again next start", "hint", name, "err", err)
	}
}
