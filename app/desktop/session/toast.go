package session

import (
	"encoding/xml"
	"strings"
)

// Windows notifications are toasts. Windows shows a desktop app's toast only when it
// knows the app by its application user model id (AUMID): from a Start-menu shortcut
// that carries the id (the installer creates one, build/windows/installer/project.nsi)
// or from HKCU\Software\Classes\AppUserModelId\<id> (which the app writes itself, so
// the portable .exe works too). The process sets the same id on itself, so its windows
// group with the shortcut on the taskbar. This file holds what is not Windows code: the
// id, the registry entry and the toast's XML.

// AppUserModelID is Clanker's application user model id. The installer's Start-menu
// shortcut carries exactly this string; change both together.
const AppUserModelID = "ClankerDesktop.Clanker"

// appIDKey is the registry key (under HKEY_CURRENT_USER) that describes the id to the
// notification platform; the uninstaller deletes it.
const appIDKey = `Software\Classes\AppUserModelId\` + AppUserModelID

// appIDValues are the string values written under appIDKey: the name Windows shows
// above the toast and in Settings > Notifications.
func appIDValues(displayName string) map[string]string {
	return map[string]string{"DisplayName": displayName}
}

// toastXML is the toast for n in the ToastGeneric template: the summary as the title and
// the body under it. Urgent toasts (errors that need the user) stay on screen longer.
// The text is escaped, and characters XML cannot carry (most control characters) are
// dropped, because Windows refuses the whole toast otherwise.
func toastXML(n Notification) string {
	var b strings.Builder
	b.WriteString("<toast")
	if n.Urgent {
		b.WriteString(` duration="long"`)
	}
	b.WriteString(`><visual><binding template="ToastGeneric">`)
	for _, line := range []string{n.Summary, n.Body} {
		if line == "" {
			continue
		}
		b.WriteString("<text>")
		_ = xml.EscapeText(&b, []byte(xmlChars(line)))
		b.WriteString("</text>")
	}
	b.WriteString("</binding></visual></toast>")
	return b.String()
}

// xmlChars keeps the characters XML 1.0 allows in text.
func xmlChars(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF:
			return -1
		}
		return r
	}, s)
}
