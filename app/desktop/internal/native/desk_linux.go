//go:build linux

package native

/*
#cgo linux pkg-config: gtk+-3.0 webkit2gtk-4.1
#include <stdlib.h>
#include <string.h>
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>

// clanker_set_urgent sets or clears the urgency hint of the window holding the view: the
// window manager marks the window (in the task bar, say) until the user comes to it.
static void clanker_set_urgent(WebKitWebView *wv, gboolean on)
{
    GtkWidget *top = gtk_widget_get_toplevel(GTK_WIDGET(wv));
    if (GTK_IS_WINDOW(top))
        gtk_window_set_urgency_hint(GTK_WINDOW(top), on);
}

// clanker_set_spelling turns spell checking of the view's context on or off and sets its
// languages: langs (NULL-terminated) when it has any, else the first of the system's
// language names (unless that is C or POSIX, which name no language).
static void clanker_set_spelling(WebKitWebView *wv, gboolean on, const gchar *const *langs)
{
    WebKitWebContext *ctx = webkit_web_view_get_context(wv);
    webkit_web_context_set_spell_checking_enabled(ctx, on);
    if (!on)
        return;
    if (langs != NULL && langs[0] != NULL) {
        webkit_web_context_set_spell_checking_languages(ctx, langs);
        return;
    }
    const gchar *const *sys = g_get_language_names();
    if (sys != NULL && sys[0] != NULL && strcmp(sys[0], "C") != 0 && strcmp(sys[0], "POSIX") != 0) {
        const gchar *one[] = {sys[0], NULL};
        webkit_web_context_set_spell_checking_languages(ctx, one);
    }
}

static gboolean clanker_spelling_enabled(WebKitWebView *wv)
{
    return webkit_web_context_get_spell_checking_enabled(webkit_web_view_get_context(wv));
}

// clanker_spelling_languages is the languages WebKit checks now: only those it found a
// dictionary for. The list belongs to WebKit.
static const gchar *const *clanker_spelling_languages(WebKitWebView *wv)
{
    return webkit_web_context_get_spell_checking_languages(webkit_web_view_get_context(wv));
}

static const gchar *clanker_lang_at(const gchar *const *langs, int i) { return langs[i]; }
*/
import "C"

import (
	"context"
	"unsafe"
)

// SetUrgent implements AttentionView.
func (p *linuxPlatform) SetUrgent(ctx context.Context, on bool) error {
	wv := p.view()
	if wv == nil {
		return ErrNotReady
	}
	return onMainThread(ctx, func() { C.clanker_set_urgent(wv, cbool(on)) })
}

// SetSpellChecking implements SpellView.
func (p *linuxPlatform) SetSpellChecking(ctx context.Context, on bool, languages []string) error {
	wv := p.view()
	if wv == nil {
		return ErrNotReady
	}
	list := make([]*C.gchar, 0, len(languages)+1)
	for _, l := range languages {
		cs := C.CString(l)
		defer C.free(unsafe.Pointer(cs))
		list = append(list, (*C.gchar)(cs))
	}
	list = append(list, nil)
	// The list lives in C memory for the call: cgo forbids passing Go memory that holds
	// pointers to C.
	arr := (**C.gchar)(C.malloc(C.size_t(len(list)) * C.size_t(unsafe.Sizeof(list[0]))))
	defer C.free(unsafe.Pointer(arr))
	copy(unsafe.Slice(arr, len(list)), list)
	return onMainThread(ctx, func() {
		C.clanker_set_spelling(wv, cbool(on), (**C.gchar)(unsafe.Pointer(arr)))
	})
}

// SpellChecking implements SpellView.
func (p *linuxPlatform) SpellChecking(ctx context.Context) (on bool, languages []string, err error) {
	wv := p.view()
	if wv == nil {
		return false, nil, ErrNotReady
	}
	err = onMainThread(ctx, func() {
		on = C.clanker_spelling_enabled(wv) != 0
		langs := C.clanker_spelling_languages(wv)
		if langs == nil {
			return
		}
		for i := 0; ; i++ {
			l := C.clanker_lang_at(langs, C.int(i))
			if l == nil {
				break
			}
			languages = append(languages, C.GoString((*C.char)(l)))
		}
	})
	return on, languages, err
}

func cbool(b bool) C.gboolean {
	if b {
		return 1
	}
	return 0
}
