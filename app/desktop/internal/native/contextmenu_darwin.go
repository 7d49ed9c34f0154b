//go:build darwin

package native

/*
#include <stdlib.h>
#include "contextmenu_darwin.h"
*/
import "C"

import (
	"context"
	"errors"
	"unsafe"

	"github.com/clanker-desktop/clanker/app/desktop/internal/macos"
	"github.com/clanker-desktop/clanker/app/desktop/menus"
)

// ContextMenu says the page's right-click menu carries the Clanker items here.
const ContextMenu = true

func (p *darwinPlatform) InstallContextMenu(ctx context.Context) error {
	wv := p.view()
	if wv == nil {
		return ErrNotReady
	}
	ok := false
	if err := onMainThread(ctx, func() { ok = C.clanker_mac_context_menu_install(wv) != 0 }); err != nil {
		return err
	}
	if !ok {
		return errors.New("desktop: the web view has no context-menu hook to add the Clanker items to")
	}
	return nil
}

// SetContextMenuStatus records what the next right-click menu shows. The menu is built
// on the main thread when the user right-clicks, so it reads this copy and never asks
// the Controller (whose Status may wait for the engine).
func (p *darwinPlatform) SetContextMenuStatus(ctx context.Context, c menus.ContextMenuState) error {
	items := macos.Flatten(macos.ContextItems(c))
	n := len(items)
	labels := make([]*C.char, n)
	actions := make([]*C.char, n)
	targets := make([]*C.char, n)
	flags := make([]C.uint8_t, n)
	depths := make([]C.int, n)
	for i, it := range items {
		labels[i], actions[i], targets[i] = C.CString(it.Label), C.CString(it.Action), C.CString(it.Target)
		var f C.uint8_t
		if it.Enabled {
			f |= C.CLANKER_MAC_ITEM_ENABLED
		}
		if it.Checked {
			f |= C.CLANKER_MAC_ITEM_CHECKED
		}
		if it.Separator {
			f |= C.CLANKER_MAC_ITEM_SEPARATOR
		}
		if it.Opens {
			f |= C.CLANKER_MAC_ITEM_OPENS
		}
		flags[i], depths[i] = f, C.int(it.Depth)
	}
	return onMainThread(ctx, func() {
		defer func() {
			for i := range items {
				C.free(unsafe.Pointer(labels[i]))
				C.free(unsafe.Pointer(actions[i]))
				C.free(unsafe.Pointer(targets[i]))
			}
		}()
		// The arrays are Go memory holding only C values and C pointers, which cgo may pass.
		C.clanker_mac_context_menu_set(C.int(n), &labels[0], &actions[0], &targets[0], &flags[0], &depths[0])
	})
}

// ActivateContextAction builds the Clanker items into a menu and performs the named
// one through AppKit, exactly as a click on it does (the same target and action run).
func (p *darwinPlatform) ActivateContextAction(ctx context.Context, name, target string) error {
	n, t := C.CString(name), C.CString(target)
	ok := false
	err := onMainThread(ctx, func() {
		defer C.free(unsafe.Pointer(n))
		defer C.free(unsafe.Pointer(t))
		ok = C.clanker_mac_context_menu_activate(n, t) != 0
	})
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("desktop: no enabled context-menu action " + name)
	}
	return nil
}

//export goContextMenuActivated
func goContextMenuActivated(name, target *C.char) {
	n, t := C.GoString(name), C.GoString(target)
	withEvents(func(e Events) { e.ContextMenuActivated(n, t) })
}

//export goKeepWebKitItems
func goKeepWebKitItems(ids **C.char, seps, keep *C.uint8_t, n C.int) {
	if n <= 0 {
		return
	}
	idList := unsafe.Slice(ids, int(n))
	sepList := unsafe.Slice(seps, int(n))
	identifiers := make([]string, n)
	separators := make([]bool, n)
	for i := range identifiers {
		identifiers[i] = C.GoString(idList[i])
		separators[i] = sepList[i] != 0
	}
	out := unsafe.Slice(keep, int(n))
	for i, k := range macos.KeepWebKitItems(identifiers, separators) {
		if k {
			out[i] = 1
		}
	}
}
