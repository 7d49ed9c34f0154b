package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"github.com/clanker-desktop/clanker/app/diag"
	"github.com/clanker-desktop/clanker/app/engine"
)

var _ menus.Controller = (*App)(nil)

// maxNameRunes caps the page-supplied conversation name the menus show.
const maxNameRunes = 60

func (a *App) snapshot() (engine.Snapshot, error) {
	ctx, cancel := context.WithTimeout(a.ctx, 2*time.Second)
	defer cancel()
	return a.eng.Snapshot(ctx)
}

// Status implements menus.Controller.
func (a *App) Status() menus.Status {
	e := a.cur.Load()
	st := menus.Status{WindowVisible: !a.hidden.Load(), Missing: e.st.MissingLabels(e.hasKey)}
	st.Unread = a.unreadCount()
	st.Update = a.updateStatus()
	st.ConversationID = a.link.Current()
	if st.ConversationID != "" {
		st.ConversationName = engine.Clip(a.link.ConversationName(st.ConversationID), maxNameRunes)
	}
	st.Mode = engine.ModeDeactivated
	if snap, err := a.snapshot(); err == nil && snap.Foreground != nil && string(snap.Foreground.ID) == st.ConversationID {
		st.Mode = snap.Foreground.Mode
		st.WaitingForDraft = snap.WaitingForDraft
	}
	switch {
	case len(st.Missing) > 0:
		st.Mode, st.ModeLocked, st.LockReason = engine.ModeUninitialized, true, menus.LockNoSettings
	case st.ConversationID == "":
		st.ModeLocked, st.LockReason = true, menus.LockNoConversation
	case a.link.Automated():
		st.ModeLocked, st.LockReason = true, menus.LockAutomated
	}
	return st
}

// OnStatus implements menus.Controller.
func (a *App) OnStatus(fn func(menus.Status)) func() {
	a.lmu.Lock()
	id := a.nextL
	a.nextL++
	a.listeners[id] = fn
	a.lmu.Unlock()
	return func() {
		a.lmu.Lock()
		delete(a.listeners, id)
		a.lmu.Unlock()
	}
}

// notify tells the listeners the status may have changed. Callers on many goroutines (the
// engine's status, the desktop's unread count, settings, window visibility) each read the
// status afresh; statusPush makes the last delivery read it last, so a listener never keeps
// an older status than the latest (see latestFirst).
func (a *App) notify() {
	a.statusPush.run(a.deliverStatus)
}

func (a *App) deliverStatus() {
	a.lmu.Lock()
	fns := make([]func(menus.Status), 0, len(a.listeners))
	for _, fn := range a.listeners {
		fns = append(fns, fn)
	}
	a.lmu.Unlock()
	if len(fns) == 0 {
		return
	}
	st := a.Status()
	for _, fn := range fns {
		fn(st)
	}
}

// SetMode implements menus.Controller.
func (a *App) SetMode(mode engine.Mode) error {
	st := a.Status()
	if st.ModeLocked {
		return fmt.Errorf("%s: %w", st.LockReason.Sentence(), menus.ErrModeLocked)
	}
	if err := a.eng.Send(engine.SetMode{Conversation: engine.ConversationID(st.ConversationID), Mode: mode, Source: "menu"}); err != nil {
		return fmt.Errorf("could not change the mode: %w", err)
	}
	// The user found how to change a mode: the hint pointing at the pill has served.
	a.hintDone()
	go a.notifySoon()
	return nil
}

// notifySoon redraws the menus once the engine has applied a change.
func (a *App) notifySoon() {
	select {
	case <-a.ctx.Done():
	case <-time.After(200 * time.Millisecond):
		a.notify()
	}
}

// DeactivateAll implements menus.Controller.
func (a *App) DeactivateAll() error {
	if err := a.eng.Send(engine.DeactivateAll{}); err != nil {
		return fmt.Errorf("could not deactivate all conversations: %w", err)
	}
	go a.notifySoon()
	return nil
}

// PurgeConversation implements menus.Controller.
func (a *App) PurgeConversation() error {
	id := a.link.Current()
	if id == "" {
		return fmt.Errorf("nothing was deleted: %w", errNoConversation)
	}
	err := a.purge(engine.Purge{Conversation: engine.ConversationID(id), What: "what Clanker remembered about this conversation",
		Apply: func() error { return a.store.PurgeConversation(a.ctx, id) }})
	if err != nil {
		return fmt.Errorf("could not delete this conversation's data: %w", err)
	}
	return nil
}

// PurgeAll implements menus.Controller.
func (a *App) PurgeAll() error {
	err := a.purge(engine.Purge{All: true, What: "what Clanker remembered about every conversation; modes and settings are kept",
		Apply: func() error { _, err := a.store.PurgeAll(a.ctx); return err }})
	if err != nil {
		return fmt.Errorf("could not delete the conversation data: %w", err)
	}
	return nil
}

// purge runs a purge through the engine, so no answer in flight can write the data back, and
// waits for the store's answer.
func (a *App) purge(ev engine.Purge) error {
	done := make(chan error, 1)
	ev.Done = done
	if err := a.eng.Send(ev); err != nil {
		return err
	}
	select {
	case err := <-done:
		return err
	case <-time.After(purgeTimeout):
		return errors.New("the purge did not reach Clanker's engine in time; try again")
	case <-a.ctx.Done():
		return a.ctx.Err()
	}
}

// purgeTimeout bounds the wait for the engine to carry out a purge.
const purgeTimeout = 15 * time.Second

// Diagnostics implements menus.Controller. The key is passed only so the scrubber can
// remove it wherever it might appear.
func (a *App) Diagnostics(sanitised bool) (string, error) {
	snap, err := a.snapshot()
	if err != nil {
		return "", fmt.Errorf("the engine did not answer: %w", err)
	}
	d, err := DiagnosticsReport(a.ctx, a.store, snap)
	if err != nil {
		return "", err
	}
	d.AppVersion = a.opts.Version
	d.Fields["bannerShown"] = fmt.Sprint(a.link.BannerText() != "")
	d.Fields["pageState"] = a.link.PageState()
	if a.opts.LogFile != "" {
		d.Fields["logFile"] = a.opts.LogFile
	}
	key := a.cur.Load().key
	if sanitised {
		d = diag.Sanitize(d, key)
	} else {
		d = diag.Unsanitized(d, key)
	}
	b, err := diag.JSON(d)
	return string(b), err
}

// OpenSettings implements menus.Controller: it starts `clanker settings` as a process
// of its own on the same data directory (see startSettings).
func (a *App) OpenSettings() error { return a.startSettings("") }

// ShowWindow implements menus.Controller.
func (a *App) ShowWindow() error {
	if err := a.shell.Show(); err != nil {
		return err
	}
	a.sendVisibility(false)
	return nil
}

// HideWindow implements menus.Controller.
func (a *App) HideWindow() error {
	if err := a.shell.Hide(); err != nil {
		return err
	}
	a.sendVisibility(true)
	return nil
}

// Quit implements menus.Controller.
func (a *App) Quit() error { return a.shell.Quit() }
