//go:build linux

package native

/*
#cgo linux pkg-config: gtk+-3.0 webkit2gtk-4.1
#include <stdlib.h>
#include "contextmenu_linux.h"
*/
import "C"

import (
	"context"
	"errors"
	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"unsafe"
)

// ContextMenu says the page's right-click menu carries the Clanker items here.
const ContextMenu = true

func (p *linuxPlatform) InstallContextMenu(ctx context.Context) error {
	wv := p.view()
	if wv == nil {
		return ErrNotReady
	}
	return onMainThread(ctx, func() { C.clanker_context_menu_install(wv) })
}

// SetContextMenuStatus records what the next right-click menu shows. The menu is built
// on the GTK main thread when the user right-clicks, so it reads this copy and never
// asks the Controller (whose Status may wait for the engine).
func (p *linuxPlatform) SetContextMenuStatus(ctx context.Context, c menus.ContextMenuState) error {
	header := C.CString(c.Header)
	mode := C.CString(c.Mode)
	reason := C.CString(c.Reason)
	enabled := C.gboolean(0)
	if c.ModesEnabled {
		enabled = 1
	}
	return onMainThread(ctx, func() {
		defer C.free(unsafe.Pointer(header))
		defer C.free(unsafe.Pointer(mode))
		defer C.free(unsafe.Pointer(reason))
		C.clanker_context_menu_set(header, mode, enabled, reason)
	})
}

// ActivateContextAction activates a context-menu action through GAction, exactly as
// a click on its item does (the same signal handler runs).
func (p *linuxPlatform) ActivateContextAction(ctx context.Context, name, target string) error {
	n, t := C.CString(name), C.CString(target)
	ok := false
	err := onMainThread(ctx, func() {
		defer C.free(unsafe.Pointer(n))
		defer C.free(unsafe.Pointer(t))
		ok = C.clanker_context_menu_activate(n, t) != 0
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
