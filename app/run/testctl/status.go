// Package testctl is the wire format of the test control (app/run/testcontrol.go, compiled
// only with the testcontrol build tag): what GET /status answers. The app encodes it and the
// full-app and smoke tests decode it, so both read one definition. It imports nothing.
package testctl

// Status is the running app's state as GET /status reports it.
type Status struct {
	PageState   string `json:"pageState"`
	Current     string `json:"current"`
	Banner      string `json:"banner"`
	Mode        string `json:"mode"`
	Hidden      bool   `json:"hidden"`
	Popups      int    `json:"popups"`
	Configured  bool   `json:"configured"`
	InFlight    bool   `json:"inFlight"`
	Sending     bool   `json:"sending"`
	QueuedSends int    `json:"queuedSends"`
	Visiting    string `json:"visiting"`
	// Draft is whether the engine believes the foreground's compose box holds the user's text.
	Draft bool `json:"draft"`
	// Waiting is whether the menus say Clanker waits for the user's draft.
	Waiting  bool           `json:"waiting"`
	Commands map[string]int `json:"commands"`
	Pending  bool           `json:"pending"`
	// Inactive is the inactive-conversation policy the app runs with now, so a test can
	// wait for a saved change to be applied before it relies on it.
	Inactive string `json:"inactive"`
	// Notify lists the notifications the applied settings ask for: errors, incoming,
	// hide-content.
	Notify []string `json:"notify"`
	// Unread is the tray's count of messages that came while the window was not in front.
	Unread int `json:"unread"`
	// Focused is whether the window is the active one, as the platform reported it.
	Focused bool `json:"focused"`
	// Sidebar is how many sidebar conversations the page link knows: 0 until the page
	// reported its list, the baseline new messages elsewhere are told from.
	Sidebar int `json:"sidebar"`
	// Hint is whether the page shows the one-time hint beside the pill, as the Link knows.
	Hint bool `json:"hint"`
	// PageMessagesDropped is how many messages pages posted to Wails that the platform's
	// guard kept from it (anything but the bridge's events, from the Messages page).
	PageMessagesDropped uint64 `json:"pageMessagesDropped"`
	// MemoryReleases counts the idle memory releases so far; MemoryReleaseDue is whether
	// there was activity since the last one (so another is coming).
	MemoryReleases   int  `json:"memoryReleases"`
	MemoryReleaseDue bool `json:"memoryReleaseDue"`
	// DeepMemoryReleases counts those that were deep (after a long quiet, code read once
	// handed back too); DeepMemoryReleaseDue is whether there was activity since the last.
	DeepMemoryReleases   int  `json:"deepMemoryReleases"`
	DeepMemoryReleaseDue bool `json:"deepMemoryReleaseDue"`
	// PageProcessReleases counts the releases the page's process carried out (its
	// web-process extension answered; Linux).
	PageProcessReleases int `json:"pageProcessReleases"`
	// Spelling and SpellLanguages are the page's spell checking read back from the web
	// view (Linux): on or off, and the languages WebKit checks (those with a dictionary).
	Spelling       bool     `json:"spelling"`
	SpellLanguages []string `json:"spellLanguages"`
	// EngineOn is the conversation the engine has settled on (believed a view of), "" while
	// it is switching or doubts what the page shows; Current is what the page reported.
	EngineOn string `json:"engineOn"`
}
