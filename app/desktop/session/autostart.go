package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// AutostartArgs are the arguments a login start passes: the app starts hidden in the
// tray instead of opening a window over whatever the user does first.
var AutostartArgs = []string{"--hidden"}

// SetAutostart writes (enabled) or removes (disabled) the entry that starts exe at login:
// an XDG autostart .desktop file on Linux, the HKCU Run key on Windows, a LaunchAgent
// plist on macOS. The app calls it at start and whenever the setting changes, so the
// entry always points at the binary that is running now. Removing a missing entry is
// not an error.
func SetAutostart(enabled bool, exe string) error {
	if enabled && !filepath.IsAbs(exe) {
		return fmt.Errorf("autostart: the program path must be absolute, got %q", exe)
	}
	return setAutostart(enabled, exe, AutostartArgs)
}

// AutostartEnabled reports whether a login entry exists.
func AutostartEnabled() (bool, error) { return autostartEnabled() }

// PruneAutostart removes the login entry when the program it starts no longer exists
// (Clanker was uninstalled or moved, and an entry an earlier copy wrote stayed behind),
// so a login never tries to start a program that is gone. It reports whether it removed
// one. The app calls it at every start, before it applies its own setting. Only the XDG
// autostart entry is checked: the Windows uninstaller deletes the Run value itself, and
// on macOS a LaunchAgent whose program is gone only fails quietly at login (the README
// says how to delete it).
func PruneAutostart() (removed bool, err error) { return pruneAutostart() }

// xdgAutostartPath is $XDG_CONFIG_HOME/autostart/clanker.desktop (default ~/.config).
func xdgAutostartPath() (string, error) {
	base := os.Getenv("XDG_CONFIG_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("autostart: no home directory: %w", err)
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "autostart", "clanker.desktop"), nil
}

// desktopEntry is the XDG autostart file.
func desktopEntry(exe string, args []string) string {
	parts := []string{desktopExecQuote(exe)}
	for _, a := range args {
		parts = append(parts, desktopExecQuote(a))
	}
	return "[Desktop Entry]\n" +
		"Type=Application\n" +
		"Name=Clanker\n" +
		"Comment=AI participant for Google Messages\n" +
		"Exec=" + strings.Join(parts, " ") + "\n" +
		// Desktops skip an entry whose TryExec program is missing, so an entry left
		// behind by an uninstall does nothing at the next login.
		"TryExec=" + keyFileEscape(exe) + "\n" +
		"Icon=clanker\n" +
		"Terminal=false\n" +
		"X-GNOME-Autostart-enabled=true\n"
}

// keyFileEscape escapes a plain string value for the desktop entry's key-file format.
func keyFileEscape(v string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(v)
}

// entryProgram is the program a Clanker autostart entry starts: its TryExec value, or for
// an entry without one (older versions wrote none) the first word of Exec, unquoted as
// desktopExecQuote quoted it. It is "" when the entry names none.
func entryProgram(entry string) string {
	var exec string
	for _, line := range strings.Split(entry, "\n") {
		line = strings.TrimRight(line, "\r")
		if v, ok := strings.CutPrefix(line, "TryExec="); ok {
			return keyFileUnescape(v)
		}
		if v, ok := strings.CutPrefix(line, "Exec="); ok && exec == "" {
			exec = v
		}
	}
	exec = keyFileUnescape(exec)
	if !strings.HasPrefix(exec, `"`) {
		first, _, _ := strings.Cut(exec, " ")
		return strings.ReplaceAll(first, "%%", "%")
	}
	var b strings.Builder
	for i := 1; i < len(exec); i++ {
		c := exec[i]
		if c == '\\' && i+1 < len(exec) {
			i++
			b.WriteByte(exec[i])
			continue
		}
		if c == '"' {
			break
		}
		b.WriteByte(c)
	}
	return strings.ReplaceAll(b.String(), "%%", "%")
}

func keyFileUnescape(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 == len(v) {
			b.WriteByte(v[i])
			continue
		}
		i++
		switch v[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 's':
			b.WriteByte(' ')
		default:
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

// desktopExecQuote quotes one Exec argument as the Desktop Entry spec wants: reserved
// characters inside double quotes, with ", `, $ and \ escaped by a backslash; % is
// doubled because it starts field codes. The value is then escaped once more for the
// key-file format, which turns each backslash into two.
func desktopExecQuote(a string) string {
	a = strings.ReplaceAll(a, "%", "%%")
	if a != "" && !strings.ContainsAny(a, " \t\n\"'\\><~|&;$*?#()`") {
		return a
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range a {
		switch r {
		case '"', '`', '$', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return strings.ReplaceAll(b.String(), `\`, `\\`)
}

// launchAgentLabel names the macOS LaunchAgent (and its plist file). It is the app
// bundle's identifier (build/darwin/Info.plist), which also lets macOS 13 and later show
// the login item under Clanker's name (AssociatedBundleIdentifiers).
const launchAgentLabel = "io.github.clanker-desktop.clanker"

// The macOS login item is a LaunchAgent plist in ~/Library/LaunchAgents, not
// SMAppService: SMAppService needs macOS 13 (Clanker supports 12), a signed app (the
// release is only ad-hoc signed), and cannot pass arguments, so the login start could
// not say --hidden. launchd reads the file at the next login; deleting it removes the
// item. These functions take the home directory so they are tested on every system;
// autostart_darwin.go passes the user's.

// launchAgentPath is where the LaunchAgent lives under home.
func launchAgentPath(home string) string {
	return filepath.Join(home, "Library", "LaunchAgents", launchAgentLabel+".plist")
}

// setLaunchAgent writes (enabled) or removes the LaunchAgent under home.
// launchAgentRefusal says why a login item must not start exe, or "". macOS runs an app
// that was opened where it was downloaded from a random, temporary path
// (App Translocation: .../AppTranslocation/<id>/d/Clanker.app), and an app opened from
// its disk image runs from the image's read-only volume under /Volumes: either path is
// gone after the next restart, so a login item naming it would start nothing.
// readOnlyVolume says exe's volume is mounted read-only.
func launchAgentRefusal(exe string, readOnlyVolume bool) string {
	const move = "move Clanker.app to the Applications folder, open it from there, and switch \"Start at login\" on again"
	switch {
	case strings.Contains(exe, "/AppTranslocation/"):
		return "Clanker runs from a temporary copy macOS made of it (App Translocation), which is gone after a restart; " + move
	case strings.HasPrefix(exe, "/Volumes/") && readOnlyVolume:
		return "Clanker runs from its disk image, which is not there after a restart; " + move
	}
	return ""
}

func setLaunchAgent(home string, enabled bool, exe string, args []string) error {
	path := launchAgentPath(home)
	if !enabled {
		if err := removeIfExists(path); err != nil {
			return fmt.Errorf("autostart: remove the login item %s: %w", path, err)
		}
		return nil
	}
	if why := launchAgentRefusal(exe, readOnlyVolume(exe)); why != "" {
		return errors.New("autostart: " + why)
	}
	if err := writeFileAtomic(path, []byte(launchAgentPlist(exe, args)), 0o644); err != nil {
		return fmt.Errorf("autostart: write the login item %s: %w", path, err)
	}
	return nil
}

// launchAgentEnabled reports whether the LaunchAgent exists under home.
func launchAgentEnabled(home string) (bool, error) {
	_, err := os.Stat(launchAgentPath(home))
	if os.IsNotExist(err) {
		return false, nil
	}
	return err == nil, err
}

// launchAgentPlist is the macOS LaunchAgent that starts exe at login: only in the
// user's graphical session (Aqua), never restarted by launchd when the user quits.
func launchAgentPlist(exe string, args []string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + launchAgentLabel + `</string>
	<key>ProgramArguments</key>
	<array>
`)
	for _, a := range append([]string{exe}, args...) {
		b.WriteString("\t\t<string>" + xmlEscape(a) + "</string>\n")
	}
	b.WriteString(`	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<false/>
	<key>LimitLoadToSessionType</key>
	<string>Aqua</string>
	<key>ProcessType</key>
	<string>Interactive</string>
	<key>AssociatedBundleIdentifiers</key>
	<array>
		<string>` + launchAgentLabel + `</string>
	</array>
</dict>
</plist>
`)
	return b.String()
}

func xmlEscape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")
	return r.Replace(s)
}

// windowsRunValue is the command line stored under the Run key.
func windowsRunValue(exe string, args []string) string {
	parts := []string{`"` + exe + `"`}
	parts = append(parts, args...)
	return strings.Join(parts, " ")
}

// writeFileAtomic writes data to path through a temp file and a rename, so a crash never
// leaves a half-written entry that the desktop would try to run.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".clanker-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
