package session

import (
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
		"Icon=clanker\n" +
		"Terminal=false\n" +
		"X-GNOME-Autostart-enabled=true\n"
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
func setLaunchAgent(home string, enabled bool, exe string, args []string) error {
	path := launchAgentPath(home)
	if !enabled {
		if err := removeIfExists(path); err != nil {
			return fmt.Errorf("autostart: remove the login item %s: %w", path, err)
		}
		return nil
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
