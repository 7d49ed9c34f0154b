package engine

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// InactivePolicy says what Clanker does with new messages in conversations that are not in the
// foreground (the extension's "sidebar mode").
type InactivePolicy string

// The three inactive-conversation policies, with the extension's storage values.
const (
	InactiveIgnore  InactivePolicy = "ignore"
	InactiveProcess InactivePolicy = "process"
	InactiveIdle    InactivePolicy = "idle"
)

// BudgetKind says how the monthly budget is measured.
type BudgetKind string

// Budget kinds. BudgetNone means no budget is enforced.
const (
	BudgetNone   BudgetKind = "none"
	BudgetTokens BudgetKind = "tokens"
	BudgetCost   BudgetKind = "cost"
)

// Ranges and defaults carried over from the extension's options page.
const (
	MinHistorySize     = 10
	MaxHistorySize     = 500
	DefaultHistorySize = 20

	MinNewsSearches     = 1
	MaxNewsSearches     = 100
	DefaultNewsSearches = 10

	MinHour               = 0
	MaxHour               = 23
	DefaultQuietStartHour = 21
	DefaultQuietStopHour  = 9

	// MaxModelLength and MaxUserNameLength bound free-text fields so a pasted
	// document cannot end up in every prompt.
	MaxModelLength    = 200
	MaxUserNameLength = 100

	// MaxEndpointLength bounds the endpoint URL; real API base URLs are far shorter, and the
	// URL is sent with every request.
	MaxEndpointLength = 2048

	// Budget limits: far above any real monthly spend, low enough that sums of them stay
	// exact, and they keep 1e308 or infinity out of the budget arithmetic.
	MaxMonthlyTokens   int64   = 1_000_000_000_000
	MaxMonthlyCost     float64 = 1_000_000_000
	MaxPricePerMillion float64 = 1_000_000
	MaxPrices                  = 500
)

// Price is what a model costs, in the user's currency per million tokens.
type Price struct {
	PromptPerMillion     float64 `json:"promptPerMillion"`
	CompletionPerMillion float64 `json:"completionPerMillion"`
}

// Budget is an optional monthly spending limit. When it is exceeded the app
// deactivates every conversation and tells the user why.
type Budget struct {
	Kind BudgetKind `json:"kind"`
	// MonthlyTokens is the limit on prompt plus completion tokens when Kind is
	// BudgetTokens.
	MonthlyTokens int64 `json:"monthlyTokens"`
	// MonthlyCost is the limit in the user's currency when Kind is BudgetCost.
	MonthlyCost float64 `json:"monthlyCost"`
	// Prices maps a model name to its price; a cost budget needs a price for
	// every model that is used, so an unknown model is reported rather than
	// counted as free.
	Prices map[string]Price `json:"prices,omitempty"`
}

// Notifications holds the desktop notification preferences.
type Notifications struct {
	// Errors shows a desktop notification for LLM errors.
	Errors bool `json:"errors"`
	// IncomingWhileHidden notifies about new messages while the window is not in front
	// (hidden, minimised or behind another window). On by default: Clanker is where the
	// user's messages arrive. The JSON name stays for the settings already stored.
	IncomingWhileHidden bool `json:"incomingWhileHidden"`
	// HideContent keeps message text out of notifications (sender only).
	HideContent bool `json:"hideContent"`
	// Sound asks the desktop to play its message sound with a notification about new
	// messages. Off by default: a desktop that plays one for every notification does so
	// anyway.
	Sound bool `json:"sound"`
}

// SpellCheck says whether the Messages page marks misspelt words in what the user types,
// and in which languages.
type SpellCheck struct {
	Enabled bool `json:"enabled"`
	// Languages are dictionary names ("en_US", "de_DE", "fr"); empty means the system's
	// language. A language without an installed dictionary is left out by the platform.
	Languages []string `json:"languages"`
}

// MaxSpellLanguages bounds the spell-checking languages.
const MaxSpellLanguages = 8

// spellLanguageRE is a dictionary name: a language code, and a region after an underscore.
var spellLanguageRE = regexp.MustCompile(`^[a-z]{2,3}(_[A-Z]{2})?$`)

// NormalizeSpellLanguage turns what a user types for a language ("de-de", " en_us ") into
// the dictionary name ("de_DE", "en_US"); it does not check it.
func NormalizeSpellLanguage(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "-", "_")
	lang, region, ok := strings.Cut(s, "_")
	if !ok {
		return strings.ToLower(lang)
	}
	return strings.ToLower(lang) + "_" + strings.ToUpper(region)
}

// spellProblem is the sentence for a list of spell-checking languages that cannot be used,
// or "".
func spellProblem(langs []string) string {
	if len(langs) > MaxSpellLanguages {
		return fmt.Sprintf("Spell checking takes at most %d languages (you entered %d).", MaxSpellLanguages, len(langs))
	}
	for _, l := range langs {
		if !spellLanguageRE.MatchString(l) {
			return fmt.Sprintf("%q is not a language Clanker can check spelling in: enter dictionary names such as en_US, de_DE or fr, separated by commas.", Clip(l, 40))
		}
	}
	return ""
}

// Updates says whether Clanker looks for a newer release, and where. It only ever tells the
// user ("Clanker 1.2.4 is available", with a link); it never downloads or installs anything.
type Updates struct {
	// Check asks the release feed at most once a day (never in the demo).
	Check bool `json:"check"`
	// Feed is the release feed's address: "" means the project's GitHub releases. An https
	// address, or http on this computer.
	Feed string `json:"feed"`
}

// Settings is every user setting except the API key. It is the one definition the store, the
// settings window, `clanker config` and the engine share; the JSON names are the stored format
// and the settings window's field names, so they never change.
//
// The API key is deliberately not a field: it lives in the OS keychain (or, failing that, a
// separate database row), so that a Settings value can be logged, diffed, exported or sent to
// the settings window without ever carrying the secret. Whether a key is stored travels beside
// Settings (see Missing and SettingsChanged).
type Settings struct {
	Endpoint              string         `json:"endpoint"`
	Model                 string         `json:"model"`
	UserName              string         `json:"userName"`
	HistorySize           int            `json:"historySize"`
	InactiveMode          InactivePolicy `json:"inactiveMode"`
	WebSearch             bool           `json:"webSearch"`
	RelaxedResponsiveness bool           `json:"relaxedResponsiveness"`
	NewsSearch            bool           `json:"newsSearch"`
	NewsMaxSearches       int            `json:"newsMaxSearches"`
	QuietStartHour        int            `json:"quietStartHour"`
	QuietStopHour         int            `json:"quietStopHour"`
	Budget                Budget         `json:"budget"`
	Notifications         Notifications  `json:"notifications"`
	StartHidden           bool           `json:"startHidden"`
	Autostart             bool           `json:"autostart"`
	Updates               Updates        `json:"updates"`
	SpellCheck            SpellCheck     `json:"spellCheck"`
}

// DefaultSettings returns the settings a fresh install starts with. They match the
// extension's defaults; the connection fields start empty so the app is
// Uninitialized until the user fills them in.
func DefaultSettings() Settings {
	return Settings{
		HistorySize:           DefaultHistorySize,
		InactiveMode:          InactiveIgnore,
		RelaxedResponsiveness: true,
		NewsMaxSearches:       DefaultNewsSearches,
		QuietStartHour:        DefaultQuietStartHour,
		QuietStopHour:         DefaultQuietStopHour,
		Budget:                Budget{Kind: BudgetNone},
		Notifications:         Notifications{Errors: true, IncomingWhileHidden: true},
		Updates:               Updates{Check: true},
		SpellCheck:            SpellCheck{Enabled: true, Languages: []string{}},
	}
}

// Field names used in FieldError and Missing. They are the JSON names, so the
// settings window can attach a message to the right control.
const (
	FieldEndpoint        = "endpoint"
	FieldAPIKey          = "apiKey"
	FieldModel           = "model"
	FieldUserName        = "userName"
	FieldHistorySize     = "historySize"
	FieldInactiveMode    = "inactiveMode"
	FieldNewsMaxSearches = "newsMaxSearches"
	FieldQuietStartHour  = "quietStartHour"
	FieldQuietStopHour   = "quietStopHour"
	FieldBudget          = "budget"
	// FieldPrices is the budget's model prices (Budget.Prices), which the settings window
	// edits as a list of its own.
	FieldPrices = "prices"
	// FieldUpdateFeed is Updates.Feed.
	FieldUpdateFeed = "updateFeed"
	// FieldSpellLanguages is SpellCheck.Languages.
	FieldSpellLanguages = "spellLanguages"
)

// FieldError is one problem with one setting, phrased for the user.
type FieldError struct {
	Field   string
	Message string
}

func (e FieldError) Error() string { return e.Field + ": " + e.Message }

// FieldErrors is the list of problems Validate found. It is an error so callers can
// return it directly, and a list so the settings window can show every problem
// at once instead of one per save attempt.
type FieldErrors []FieldError

func (es FieldErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return "invalid settings: " + strings.Join(parts, "; ")
}

// For returns the message for field, or "" when that field is fine.
func (es FieldErrors) For(field string) string {
	for _, e := range es {
		if e.Field == field {
			return e.Message
		}
	}
	return ""
}

// Normalize trims text fields and normalises the endpoint's trailing slash. It
// does not clamp numbers: an out-of-range number is reported by Validate so
// the user learns that their input was not taken as typed.
func (s *Settings) Normalize() {
	s.Endpoint = strings.TrimSpace(s.Endpoint)
	if n, err := NormalizeEndpoint(s.Endpoint); err == nil {
		s.Endpoint = n
	}
	s.Model = strings.TrimSpace(s.Model)
	s.UserName = strings.TrimSpace(s.UserName)
	if s.InactiveMode == "" {
		s.InactiveMode = InactiveIgnore
	}
	if s.Budget.Kind == "" {
		s.Budget.Kind = BudgetNone
	}
	s.Updates.Feed = strings.TrimSpace(s.Updates.Feed)
	langs := []string{}
	for _, l := range s.SpellCheck.Languages {
		if l = NormalizeSpellLanguage(l); l != "" && !slices.Contains(langs, l) {
			langs = append(langs, l)
		}
	}
	s.SpellCheck.Languages = langs
}

// Validate checks every setting and returns FieldErrors (nil when all is well).
// Empty connection fields are not errors here: a user may save a partial
// configuration, which Missing then reports as Uninitialized. An endpoint that
// is present must be valid.
func (s Settings) Validate() error {
	es := s.rangeErrors()
	add := func(field, format string, args ...any) {
		es = append(es, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if strings.TrimSpace(s.Endpoint) != "" {
		if _, err := NormalizeEndpoint(s.Endpoint); err != nil {
			add(FieldEndpoint, "%s", err.Error())
		}
	}
	if utf8.RuneCountInString(s.Model) > MaxModelLength {
		add(FieldModel, "The model name is too long (at most %d characters).", MaxModelLength)
	}
	if bad := textProblem(s.Model); bad != "" {
		add(FieldModel, "The model name cannot contain %s.", bad)
	}
	if utf8.RuneCountInString(s.UserName) > MaxUserNameLength {
		add(FieldUserName, "Your name is too long (at most %d characters).", MaxUserNameLength)
	}
	if bad := textProblem(s.UserName); bad != "" {
		add(FieldUserName, "Your name cannot contain %s.", bad)
	}
	if err := s.Budget.validate(); err != "" {
		add(FieldBudget, "%s", err)
	}
	if err := validatePrices(s.Budget.Prices); err != "" {
		add(FieldPrices, "%s", err)
	} else if missing := s.Budget.Unpriced(s.Model); len(missing) > 0 {
		// Saved as it is, the budget would deactivate Clanker at its first request; refusing
		// the save instead keeps the form as typed and says what to add.
		add(FieldPrices, "%s", NoPriceMessage(missing[0]))
	}
	if msg := FeedProblem(s.Updates.Feed); msg != "" {
		add(FieldUpdateFeed, "%s", msg)
	}
	if msg := spellProblem(s.SpellCheck.Languages); msg != "" {
		add(FieldSpellLanguages, "%s", msg)
	}
	if len(es) == 0 {
		return nil
	}
	return es
}

// FeedProblem is the sentence for a release feed address that cannot be used, or "" for a
// usable one ("" itself means the default feed). Like the endpoint, the feed is https, or
// plain http only on this computer, so nobody on the network can answer in its place.
func FeedProblem(feed string) string {
	if feed == "" {
		return ""
	}
	const want = "The release feed must be an https address (plain http only on this computer), like https://api.github.com/repos/OWNER/REPO/releases/latest."
	if len(feed) > MaxEndpointLength || strings.ContainsAny(feed, " \t\r\n") {
		return want
	}
	u, err := url.Parse(feed)
	if err != nil || u.Host == "" || u.User != nil || u.Opaque != "" {
		return want
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return ""
	case "http":
		if IsLocalHost(u.Hostname()) {
			return ""
		}
	}
	return want
}

// rangeErrors checks the numbers and choices the engine's timing and policies depend on. The
// engine refuses settings that fail it; free-text fields and the budget concern the store and
// the LLM adapter and are checked by Validate alone.
func (s Settings) rangeErrors() FieldErrors {
	var es FieldErrors
	add := func(field, format string, args ...any) {
		es = append(es, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if s.HistorySize < MinHistorySize || s.HistorySize > MaxHistorySize {
		add(FieldHistorySize, "Message history size must be between %d and %d (you entered %d).",
			MinHistorySize, MaxHistorySize, s.HistorySize)
	}
	switch s.InactiveMode {
	case InactiveIgnore, InactiveProcess, InactiveIdle:
	default:
		add(FieldInactiveMode, "Inactive conversation response must be ignore, process or idle (got %q).", s.InactiveMode)
	}
	if s.NewsMaxSearches < MinNewsSearches || s.NewsMaxSearches > MaxNewsSearches {
		add(FieldNewsMaxSearches, "Maximum news site searches must be between %d and %d (you entered %d).",
			MinNewsSearches, MaxNewsSearches, s.NewsMaxSearches)
	}
	if s.QuietStartHour < MinHour || s.QuietStartHour > MaxHour {
		add(FieldQuietStartHour, "Quiet hours start must be an hour from %d to %d (you entered %d).", MinHour, MaxHour, s.QuietStartHour)
	}
	if s.QuietStopHour < MinHour || s.QuietStopHour > MaxHour {
		add(FieldQuietStopHour, "Quiet hours stop must be an hour from %d to %d (you entered %d).", MinHour, MaxHour, s.QuietStopHour)
	}
	return es
}

func (b Budget) validate() string {
	switch b.Kind {
	case BudgetNone, "":
		return ""
	case BudgetTokens:
		if b.MonthlyTokens <= 0 {
			return "A token budget needs a monthly limit above zero."
		}
		if b.MonthlyTokens > MaxMonthlyTokens {
			return fmt.Sprintf("A token budget can be at most %d tokens a month.", MaxMonthlyTokens)
		}
	case BudgetCost:
		if !(b.MonthlyCost > 0) {
			return "A cost budget needs a monthly limit above zero."
		}
		if !(b.MonthlyCost <= MaxMonthlyCost) {
			return fmt.Sprintf("A cost budget can be at most %.0f a month.", MaxMonthlyCost)
		}
	default:
		return fmt.Sprintf("Budget type must be none, tokens or cost (got %q).", b.Kind)
	}
	return ""
}

// validatePrices checks the model prices, which apply whatever the budget kind: the usage
// view prices its tokens with them too. It returns the first problem in name order, or "".
func validatePrices(prices map[string]Price) string {
	if len(prices) > MaxPrices {
		return tooManyPrices(len(prices))
	}
	names := make([]string, 0, len(prices))
	for name := range prices {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if msg := priceProblem(name, prices[name]); msg != "" {
			return msg
		}
	}
	return ""
}

// priceProblem is the sentence for one bad price, or "".
func priceProblem(name string, p Price) string {
	if strings.TrimSpace(name) == "" {
		return "Every model price needs a model name."
	}
	if utf8.RuneCountInString(name) > MaxModelLength || textProblem(name) != "" {
		return fmt.Sprintf("A model name in the prices is too long or contains control characters (at most %d characters).", MaxModelLength)
	}
	if !(p.PromptPerMillion >= 0) || !(p.CompletionPerMillion >= 0) {
		return priceNegative(name)
	}
	if p.PromptPerMillion > MaxPricePerMillion || p.CompletionPerMillion > MaxPricePerMillion {
		return priceTooHigh(name)
	}
	return ""
}

// Unpriced returns the models among models (blank ones ignored, each once) that a cost budget
// has no price for; under any other budget kind it returns nil. A model in the result would
// make Budget.Check stop Clanker as soon as it is used.
func (b Budget) Unpriced(models ...string) []string {
	if b.Kind != BudgetCost {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range models {
		m = strings.TrimSpace(m)
		if _, ok := b.Prices[m]; ok || m == "" || seen[m] {
			continue
		}
		seen[m] = true
		out = append(out, m)
	}
	return out
}

// NoPriceMessage is the sentence that refuses a cost budget (or a model) that would leave
// model without a price, naming where the price is entered.
func NoPriceMessage(model string) string {
	return fmt.Sprintf("Your monthly budget counts cost, and no price is set for model %q, so Clanker would stop as soon as "+
		"it is used. Enter its prices in Settings > Budget > Model prices, or change the budget to tokens.", model)
}

// Clamp forces numbers into range and unknown choices to their defaults. It is
// for values read back from storage (written by an older or newer version, or
// edited by hand), where refusing to start would be worse than a fallback;
// values typed by the user go through Validate instead.
func (s *Settings) Clamp() {
	d := DefaultSettings()
	s.HistorySize = clampInt(s.HistorySize, MinHistorySize, MaxHistorySize)
	s.NewsMaxSearches = clampInt(s.NewsMaxSearches, MinNewsSearches, MaxNewsSearches)
	if s.QuietStartHour < MinHour || s.QuietStartHour > MaxHour {
		s.QuietStartHour = d.QuietStartHour
	}
	if s.QuietStopHour < MinHour || s.QuietStopHour > MaxHour {
		s.QuietStopHour = d.QuietStopHour
	}
	switch s.InactiveMode {
	case InactiveIgnore, InactiveProcess, InactiveIdle:
	default:
		s.InactiveMode = d.InactiveMode
	}
	if s.Budget.validate() != "" {
		s.Budget.Kind = BudgetNone
	}
	s.Budget.Prices = clampPrices(s.Budget.Prices)
	if FeedProblem(s.Updates.Feed) != "" {
		s.Updates.Feed = ""
	}
	if spellProblem(s.SpellCheck.Languages) != "" {
		keep := []string{}
		for _, l := range s.SpellCheck.Languages {
			if spellLanguageRE.MatchString(l) && len(keep) < MaxSpellLanguages {
				keep = append(keep, l)
			}
		}
		s.SpellCheck.Languages = keep
	}
}

// clampPrices drops the stored prices that would not validate (and any beyond MaxPrices, in
// name order), keeping the good ones. A cost budget then reports the models it lost as
// unpriced and stops Clanker, rather than counting them as free.
func clampPrices(prices map[string]Price) map[string]Price {
	if validatePrices(prices) == "" {
		return prices
	}
	names := make([]string, 0, len(prices))
	for name := range prices {
		names = append(names, name)
	}
	sort.Strings(names)
	kept := map[string]Price{}
	for _, name := range names {
		if len(kept) < MaxPrices && priceProblem(name, prices[name]) == "" {
			kept[name] = prices[name]
		}
	}
	return kept
}

// textProblem names what a one-line text setting must not contain, or returns "" when it is
// fine: invalid UTF-8, line breaks and tabs, any other control character (terminal escape
// sequences start with one) and the bidirectional embeddings, overrides and isolates, which
// change how the text around them reads in a prompt or a notification. Joiners stay allowed:
// names in Persian and Indic scripts, and emoji, need them.
func textProblem(v string) string {
	if !utf8.ValidString(v) {
		return "bytes that are not valid text (UTF-8)"
	}
	if strings.ContainsAny(v, "\r\n\t") {
		return "line breaks or tabs"
	}
	for _, r := range v {
		if unicode.IsControl(r) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0xfeff {
			return "control characters or escape sequences"
		}
	}
	return ""
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// Missing lists the connection fields that still need a value, by their JSON
// names and in the order the settings window shows them. A non-empty result means the app is
// Uninitialized: no conversation can be made Available or Active. The key is
// passed as a flag because Settings never holds it.
func (s Settings) Missing(hasAPIKey bool) []string {
	var m []string
	if strings.TrimSpace(s.Endpoint) == "" {
		m = append(m, FieldEndpoint)
	}
	if !hasAPIKey {
		m = append(m, FieldAPIKey)
	}
	if strings.TrimSpace(s.Model) == "" {
		m = append(m, FieldModel)
	}
	if strings.TrimSpace(s.UserName) == "" {
		m = append(m, FieldUserName)
	}
	return m
}

// missingLabels are the words the page banner and the menus use for each missing field.
var missingLabels = map[string]string{
	FieldEndpoint: "the endpoint",
	FieldAPIKey:   "an API key",
	FieldModel:    "a model",
	FieldUserName: "your name",
}

// MissingLabels is Missing in the words the page banner and the menus show ("the endpoint",
// "an API key", "a model", "your name"), ready to be listed in a sentence.
func (s Settings) MissingLabels(hasAPIKey bool) []string {
	var out []string
	for _, f := range s.Missing(hasAPIKey) {
		out = append(out, missingLabels[f])
	}
	return out
}

// Configured reports whether everything needed to talk to a model is present.
func (s Settings) Configured(hasAPIKey bool) bool { return len(s.Missing(hasAPIKey)) == 0 }

// ErrUninitialized is returned by callers that refuse to work with an
// incomplete configuration.
var ErrUninitialized error = Problem("Clanker is not configured: open Settings and fill in the endpoint, API key, model and your name")

// QuietAt reports whether hour (0-23, local time) falls within quiet hours.
// The range wraps midnight (21 to 9 means 21:00-08:59); equal start and stop
// means there is no quiet time, as in the extension.
func (s Settings) QuietAt(hour int) bool {
	start, stop := s.QuietStartHour, s.QuietStopHour
	if start == stop {
		return false
	}
	if start < stop {
		return hour >= start && hour < stop
	}
	return hour >= start || hour < stop
}

// ModelFor returns the model to use for a conversation: its override when one
// is set, else the global model.
func (s Settings) ModelFor(override string) string {
	if o := strings.TrimSpace(override); o != "" {
		return o
	}
	return s.Model
}

// Problem is an error whose text is a complete sentence for the user. It is a
// separate type so the messages can be proper sentences (capital letter, full
// stop) while ordinary Go errors keep the usual lower-case style.
type Problem string

func (p Problem) Error() string { return string(p) }
