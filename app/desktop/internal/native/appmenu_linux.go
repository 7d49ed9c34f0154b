//go:build linux

package native

/*
#cgo linux pkg-config: gtk+-3.0 webkit2gtk-4.1
#include <stdlib.h>
#include "appmenu_linux.h"
*/
import "C"

import (
	"context"
	"fmt"
	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"unsafe"
)

// The Linux menu platform: WebKitGTK zoom and editing commands, and the menu bar kept
// in step with the model by hand, because Wails v2.13's MenuUpdateApplicationMenu does
// nothing on Linux (its window never records the menu it was given).

func (p *linuxPlatform) SetZoom(ctx context.Context, level float64) error {
	wv := p.view()
	if wv == nil {
		return ErrNotReady
	}
	return onMainThread(ctx, func() { C.clanker_set_zoom(wv, C.double(level)) })
}

func (p *linuxPlatform) ZoomLevel(ctx context.Context) (float64, error) {
	wv := p.view()
	if wv == nil {
		return 0, ErrNotReady
	}
	var level float64
	err := onMainThread(ctx, func() { level = float64(C.clanker_get_zoom(wv)) })
	return level, err
}

func (p *linuxPlatform) EditCommand(ctx context.Context, cmd menus.EditCommand) error {
	wv := p.view()
	if wv == nil {
		return ErrNotReady
	}
	c := C.CString(string(cmd))
	return onMainThread(ctx, func() {
		defer C.free(unsafe.Pointer(c))
		C.clanker_edit(wv, c)
	})
}

// SyncAppMenu runs update on the GTK main thread (so the model is never written while
// a Wails click handler reads it there) and copies the Clanker menu's state into the
// menu bar's widgets.
func (p *linuxPlatform) SyncAppMenu(ctx context.Context, update func() []menus.NativeItem) error {
	wv := p.view()
	if wv == nil {
		return ErrNotReady
	}
	var got int
	var want int
	err := onMainThread(ctx, func() {
		items := update()
		want = len(items)
		labels := make([]*C.char, len(items))
		flags := make([]C.guchar, len(items))
		for i, it := range items {
			labels[i] = C.CString(it.Label)
			flags[i] = nativeFlags(it)
		}
		defer func() {
			for _, l := range labels {
				C.free(unsafe.Pointer(l))
			}
		}()
		if len(items) == 0 {
			return
		}
		// The arrays are Go memory holding only C pointers, which cgo may pass.
		got = int(C.clanker_appmenu_sync(wv, C.int(len(items)), &labels[0], &flags[0]))
	})
	if err != nil {
		return err
	}
	if got < 0 {
		return fmt.Errorf("desktop: the main window has no menu bar to update")
	}
	if got != want {
		return fmt.Errorf("desktop: the Clanker menu has %d native items, the model %d; not updated", got, want)
	}
	return nil
}

func nativeFlags(it menus.NativeItem) C.guchar {
	var f C.guchar
	if it.Disabled {
		f |= C.CLANKER_ITEM_DISABLED
	}
	if it.Hidden {
		f |= C.CLANKER_ITEM_HIDDEN
	}
	if it.Radio {
		f |= C.CLANKER_ITEM_RADIO
	}
	if it.Checked {
		f |= C.CLANKER_ITEM_CHECKED
	}
	if it.Separator {
		f |= C.CLANKER_ITEM_SEPARATOR
	}
	if it.Submenu {
		f |= C.CLANKER_ITEM_SUBMENU
	}
	return f
}

// MenuDump describes the menu bar (which 0) or the popup menus on screen (which 1).
func (p *linuxPlatform) MenuDump(ctx context.Context, which int) (string, error) {
	wv := p.view()
	if wv == nil {
		return "", ErrNotReady
	}
	var out string
	err := onMainThread(ctx, func() {
		c := C.clanker_menu_dump(wv, C.int(which))
		out = C.GoString(c)
		C.g_free(C.gpointer(c))
	})
	return out, err
}
