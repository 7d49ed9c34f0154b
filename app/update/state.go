package update

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// StateFile is the file in the data folder where the app keeps what its last check found, so
// a restart neither checks again before the day is out nor forgets an update it already
// knows of, and the settings window (its own process) can show it.
const StateFile = "update.json"

// State is what the last check found.
type State struct {
	// CheckedAt is when the last check ran, whatever came of it (zero: never).
	CheckedAt time.Time `json:"checkedAt"`
	// Feed is the feed that was asked ("" for the default): a different feed in the
	// settings makes a check due at once, and what another feed said does not count.
	Feed string `json:"feed"`
	// Latest and URL are the newest release the feed offered when it last answered
	// ("" when it never did); a failed check keeps them.
	Latest string `json:"latest,omitempty"`
	URL    string `json:"url,omitempty"`
	// Error is the last check's failure, in a sentence ("" when it succeeded).
	Error string `json:"error,omitempty"`
}

// LoadState reads the state from the data folder. A missing file is a state with no check
// yet; an unreadable one is reported and treated the same, so it never stops the checks.
func LoadState(dir string) (State, error) {
	b, err := os.ReadFile(filepath.Join(dir, StateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("read the update check's state: %w", err)
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return State{}, fmt.Errorf("the update check's state in %s is unreadable, so the next check starts afresh: %w", filepath.Join(dir, StateFile), err)
	}
	return s, nil
}

// SaveState writes the state atomically (a temporary file renamed over the old one), so the
// settings window never reads half a file.
func SaveState(dir string, s State) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, StateFile+".*.tmp")
	if err != nil {
		return fmt.Errorf("save the update check's state: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save the update check's state: %w", errors.Join(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, StateFile)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save the update check's state: %w", err)
	}
	return nil
}

// Notice is an update to tell the user about: the version to name and the page to link to.
// The zero Notice means there is none.
type Notice struct {
	Version string
	URL     string
}

// Label is the sentence the menus and the settings window show.
func (n Notice) Label() string {
	if n.Version == "" {
		return ""
	}
	return "Clanker " + n.Version + " is available"
}

// NoticeFor is what the state means for a build of version current with the given settings:
// the update to show, or none (checks off, a build that does not check, the release no newer,
// a state from another feed).
func NoticeFor(current string, check bool, feed string, s State) Notice {
	cur, why := Checkable(current)
	if !check || why != "" || s.Latest == "" || s.Feed != feed {
		return Notice{}
	}
	latest, ok := ParseVersion(s.Latest)
	if !ok || !Offered(cur, latest) {
		return Notice{}
	}
	if _, msg := releasePage(s.URL, feedOrDefault(feed)); msg != "" {
		return Notice{}
	}
	return Notice{Version: latest.String(), URL: s.URL}
}

func feedOrDefault(feed string) string {
	if feed == "" {
		return DefaultFeed
	}
	return feed
}
