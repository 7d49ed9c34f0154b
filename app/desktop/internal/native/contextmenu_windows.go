//go:build windows

package native

// The Clanker items of the page's right-click menu on Windows: WebView2's
// ContextMenuRequested (ICoreWebView2_11, runtime 1.0.1185 and later). The handler
// filters WebView2's own items and appends the items of clankerContextItems, made with
// ICoreWebView2Environment9::CreateContextMenuItem; a click raises the item's
// CustomItemSelected, which reports to Events.ContextMenuActivated as on Linux.
//
// NOT RUN HERE: compiled and vetted on Linux only; the Windows workflow runs it.

import (
	"context"
	"errors"
	"unsafe"

	"github.com/clanker-desktop/clanker/app/desktop/menus"
	"golang.org/x/sys/windows"
)

// ContextMenu says the page's right-click menu carries the Clanker items here.
const ContextMenu = true

func (p *windowsPlatform) InstallContextMenu(ctx context.Context) error {
	wv := p.webview()
	if wv == nil {
		return ErrNotReady
	}
	var err error
	if uiErr := p.w.onUI(ctx, func() {
		if p.contextMenu == nil {
			p.contextMenu = newHandler(iidContextMenuRequested, p.onContextMenuRequested)
		}
		err = p.addContextMenuHandler(wv)
	}); uiErr != nil {
		return uiErr
	}
	return err
}

// addContextMenuHandler registers the handler on one web view (on the UI thread).
func (p *windowsPlatform) addContextMenuHandler(wv *comPtr) error {
	wv11 := wv.queryInterface(&iidICoreWebView2_11)
	if wv11 == nil {
		return errors.New("the WebView2 runtime is too old for custom context menus (it needs ICoreWebView2_11); update Microsoft Edge WebView2")
	}
	defer wv11.release()
	env := (*comPtr)(unsafe.Pointer(p.w.chromium.Environment()))
	env9 := env.queryInterface(&iidICoreWebView2Environ9)
	if env9 == nil {
		return errors.New("the WebView2 runtime cannot create menu items (it needs ICoreWebView2Environment9); update Microsoft Edge WebView2")
	}
	p.mu.Lock()
	if p.env9 != nil {
		p.env9.release()
	}
	p.env9 = env9
	p.mu.Unlock()
	var tok eventToken
	return hresult(wv11.call(wv11AddContextMenuReqd, p.contextMenu.ptr(), uintptr(unsafe.Pointer(&tok))))
}

// SetContextMenuStatus records what the next right-click menu shows; the menu is built
// on the UI thread when the user right-clicks, from this copy.
func (p *windowsPlatform) SetContextMenuStatus(_ context.Context, c menus.ContextMenuState) error {
	p.mu.Lock()
	p.ctxState = c
	p.mu.Unlock()
	return nil
}

// ActivateContextAction runs an enabled Clanker item's action as a click on it does,
// through the same report the item's CustomItemSelected handler makes. WebView2 has no
// way to click its own menu items from the host.
func (p *windowsPlatform) ActivateContextAction(_ context.Context, name, target string) error {
	p.mu.Lock()
	st := p.ctxState
	installed := p.contextMenu != nil
	p.mu.Unlock()
	if !installed {
		return errors.New("desktop: the Clanker context-menu items are not installed")
	}
	if _, ok := findContextItem(clankerContextItems(st, true), name, target); !ok {
		return errors.New("desktop: no enabled context-menu action " + name)
	}
	withEvents(func(e Events) { e.ContextMenuActivated(name, target) })
	return nil
}

// Vtable slots of the context-menu interfaces.
const (
	cmArgsGetMenuItems = 3  // ICoreWebView2ContextMenuRequestedEventArgs
	cmColGetCount      = 3  // ICoreWebView2ContextMenuItemCollection
	cmColGetValueAt    = 4  //
	cmColRemoveAt      = 5  //
	cmColInsertAt      = 6  //
	cmItemGetName      = 3  // ICoreWebView2ContextMenuItem
	cmItemGetKind      = 8  //
	cmItemPutEnabled   = 9  //
	cmItemPutChecked   = 11 //
	cmItemGetChildren  = 13 //
	cmItemAddSelected  = 14 //
	env9CreateMenuItem = 19 // ICoreWebView2Environment9
)

// onContextMenuRequested filters WebView2's items and appends Clanker's (UI thread).
func (p *windowsPlatform) onContextMenuRequested(_, args uintptr) uintptr {
	col, err := ptrArg(&args).getPtr(cmArgsGetMenuItems)
	if err != nil {
		p.log.Warn("context menu: no items", "err", err)
		return sOK
	}
	defer col.release()
	n, _ := col.getInt32(cmColGetCount)
	own := make([]webViewItem, 0, n)
	for i := int32(0); i < n; i++ {
		it, err := col.getPtr(cmColGetValueAt, uintptr(i))
		if err != nil {
			own = append(own, webViewItem{Name: "other"})
			continue
		}
		name, _ := it.getString(cmItemGetName)
		kind, _ := it.getInt32(cmItemGetKind)
		it.release()
		own = append(own, webViewItem{Name: name, Separator: ctxKind(kind) == ctxSeparator})
	}
	remove := webViewItemsToRemove(own)
	for _, i := range remove {
		col.call(cmColRemoveAt, uintptr(i))
	}
	p.mu.Lock()
	st, env9 := p.ctxState, p.env9
	p.mu.Unlock()
	if env9 == nil {
		return sOK
	}
	if err := p.appendItems(env9, col, clankerContextItems(st, len(own) > len(remove))); err != nil {
		p.log.Warn("context menu: Clanker items not added", "err", err)
	}
	return sOK
}

// appendItems creates items and appends them to col, submenus with their children.
func (p *windowsPlatform) appendItems(env9, col *comPtr, items []ctxItem) error {
	for _, it := range items {
		label, err := windows.UTF16PtrFromString(it.Label)
		if err != nil {
			return err
		}
		item, err := env9.getPtr(env9CreateMenuItem, uintptr(unsafe.Pointer(label)), 0, uintptr(it.Kind))
		if err != nil {
			return err
		}
		err = p.fillItem(env9, item, it)
		if err == nil {
			count, _ := col.getInt32(cmColGetCount)
			err = hresult(col.call(cmColInsertAt, uintptr(count), uintptr(unsafe.Pointer(item))))
		}
		item.release()
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *windowsPlatform) fillItem(env9, item *comPtr, it ctxItem) error {
	if it.Kind == ctxSeparator {
		return nil
	}
	if err := hresult(item.call(cmItemPutEnabled, boolArg(it.Enabled))); err != nil {
		return err
	}
	if it.Kind == ctxCheckBox {
		if err := hresult(item.call(cmItemPutChecked, boolArg(it.Checked))); err != nil {
			return err
		}
	}
	if it.Kind == ctxSubmenu {
		children, err := item.getPtr(cmItemGetChildren)
		if err != nil {
			return err
		}
		defer children.release()
		return p.appendItems(env9, children, it.Children)
	}
	if it.Action == "" {
		return nil
	}
	var tok eventToken
	return hresult(item.call(cmItemAddSelected, p.selectedHandler(it.Action, it.Target).ptr(), uintptr(unsafe.Pointer(&tok))))
}

// selectedHandler is the CustomItemSelected handler of one action, made once and kept.
func (p *windowsPlatform) selectedHandler(action, target string) *comHandler {
	key := action + "\x00" + target
	p.mu.Lock()
	defer p.mu.Unlock()
	if h, ok := p.ctxItems[key]; ok {
		return h
	}
	h := newHandler(iidCustomItemSelected, func(_, _ uintptr) uintptr {
		withEvents(func(e Events) { e.ContextMenuActivated(action, target) })
		return sOK
	})
	p.ctxItems[key] = h
	return h
}

func boolArg(b bool) uintptr {
	if b {
		return 1
	}
	return 0
}
