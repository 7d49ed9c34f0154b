package settingswin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// SettingsStore is the part of the store the settings window uses (app/run passes the app's
// store, opened with the same keychain choice as the app).
type SettingsStore interface {
	Settings(ctx context.Context) (engine.Settings, error)
	SaveSettings(ctx context.Context, st engine.Settings) (engine.Settings, error)
	SetAPIKey(ctx context.Context, key string) (engine.KeyLocation, error)
	APIKey(ctx context.Context) (string, engine.KeyLocation, error)
	MaskedAPIKey(ctx context.Context) (string, engine.KeyLocation, error)
	MonthToDate(ctx context.Context, loc *time.Location) (map[string]engine.Tokens, error)
	// Usage is every usage record with from <= at < to, for the per-day and
	// per-conversation tables.
	Usage(ctx context.Context, from, to time.Time) ([]engine.Usage, error)
	// Conversations lists every stored conversation with its memory.
	Conversations(ctx context.Context) ([]engine.Conversation, error)
	SetModelOverride(ctx context.Context, id, model string) error
	// Path is the database file, named when it cannot be written.
	Path() string
	// CheckCanWrite returns an error when the database cannot be written by this user.
	CheckCanWrite() error
}

// SettingsService is what the settings window's page calls (bound to that window only,
// never to the Messages window). It reads and writes the store; the running app sees
// every save through the store's Watch. The API key goes in but never comes back out:
// the page only ever sees it masked. It reaches the model only through Probe, so the
// window links no model client of its own.
type SettingsService struct {
	Store SettingsStore
	// Probe answers Test connection and gives the web search note (app/llm's Probe in the
	// app); without it there is no note and Test connection fails.
	Probe engine.ConnectionProbe
	// Diagnostics is a text the window shows in its Diagnostics view (may be empty).
	Diagnostics string
	// StartOnDiagnostics opens the page on the Diagnostics view.
	StartOnDiagnostics bool
	// Demo says the window edits the demo's settings (`clanker demo`), where the demo
	// model answers while no endpoint is set.
	Demo bool
	// Memory carries out memory edits and clears (through the running app's engine when
	// the app runs); without it the memory is shown but cannot be changed.
	Memory MemoryEditor
	// Presets are the providers offered by name (nil: DefaultPresets).
	Presets []Preset
	// OpenURL opens a web page in the user's browser (the window's Wails runtime); OpenLink
	// passes it only the pages the window itself links to. Nil: links cannot be opened.
	OpenURL func(url string) error
	// KeyNote says why the API key is in the database file although the keychain was meant
	// to keep it ("" otherwise; app/run's KeyNote). Nil: nothing to say.
	KeyNote func() string
	// Updates says what the app's update check found, for the update settings given (app/run
	// reads the app's update state). Nil: the window says nothing about updates (the demo).
	Updates func(engine.Updates) UpdateView
	Log     *slog.Logger
}

// SettingsView is everything the settings page shows.
type SettingsView struct {
	Settings engine.Settings `json:"settings"`
	// APIKeyMasked is the stored key with all but its ends hidden ("" when none).
	APIKeyMasked string `json:"apiKeyMasked"`
	// KeyLocation is where the key is kept: keychain, database or none.
	KeyLocation string `json:"keyLocation"`
	// Missing lists the fields that keep Clanker Uninitialized; MissingText names them
	// in the page banner's words.
	Missing     []string `json:"missing"`
	MissingText string   `json:"missingText"`
	// Usage is this month's token totals per model.
	Usage []UsageRow `json:"usage"`
	// Prices is the model price list to edit: the priced models, then an empty line for each
	// model Clanker uses or has used that still has no price (the configured model, the
	// conversations' models, the models in the usage), so the user only types numbers.
	Prices []engine.PriceEntry `json:"prices"`
	// Report is the usage per day and per conversation over the last days.
	Report UsageReport `json:"report"`
	// Conversations is every stored conversation with Clanker's memory of it.
	Conversations []ConversationView `json:"conversations"`
	// ReadOnly is a sentence saying the database cannot be written ("" when it can).
	ReadOnly string `json:"readOnly"`
	// WebSearchNote is the provider's remark on web search for the endpoint ("" when none).
	WebSearchNote string `json:"webSearchNote"`
	// Diagnostics is the diagnostics text given to the window, if any.
	Diagnostics string `json:"diagnostics"`
	// StartView is the view the page opens on ("settings" or "diagnostics").
	StartView string `json:"startView"`
	// DemoModel is set when these are the demo's settings and no endpoint is set, so the
	// demo model answers: the page says so instead of "not set up".
	DemoModel bool `json:"demoModel"`
	// Presets are the providers the page offers by name.
	Presets []Preset `json:"presets"`
	// Preset is the ID of the preset the stored endpoint belongs to: "custom" for another
	// endpoint, "" when none is stored.
	Preset string `json:"preset"`
	// KeyNote says why the key is kept in the database file rather than the keychain.
	KeyNote string `json:"keyNote"`
	// Update is what the app's update check found.
	Update UpdateView `json:"update"`
}

// UpdateView is the update check as the settings window shows it.
type UpdateView struct {
	// Available is "Clanker X is available" when a newer release is known ("" otherwise).
	Available string `json:"available"`
	// URL is that release's page, which OpenLink opens.
	URL string `json:"url"`
	// Status is a sentence on the checks: when the last one ran and what came of it, or why
	// there are none.
	Status string `json:"status"`
}

// UsageRow is one model's tokens this month.
type UsageRow struct {
	Model      string `json:"model"`
	Prompt     int64  `json:"prompt"`
	Completion int64  `json:"completion"`
	Total      int64  `json:"total"`
}

// SaveRequest is a save (or a check) from the page. APIKey "" keeps the stored key;
// ClearAPIKey removes it. Prices, when present, is the price list as typed and replaces
// Settings.Budget.Prices.
type SaveRequest struct {
	Settings    engine.Settings     `json:"settings"`
	Prices      []engine.PriceEntry `json:"prices,omitempty"`
	APIKey      string              `json:"apiKey"`
	ClearAPIKey bool                `json:"clearApiKey"`
}

// SaveResult says whether the save happened and, if not, why per field.
type SaveResult struct {
	Saved  bool              `json:"saved"`
	Errors map[string]string `json:"errors"`
	// Message says why nothing was saved when no single field is to blame.
	Message string        `json:"message,omitempty"`
	View    *SettingsView `json:"view,omitempty"`
}

// TestRequest is a Test connection click: the values in the form, not yet saved.
// APIKey "" means the stored key.
type TestRequest struct {
	Endpoint string `json:"endpoint"`
	APIKey   string `json:"apiKey"`
	Model    string `json:"model"`
}

// TestResult is what Test connection found.
type TestResult struct {
	OK      bool     `json:"ok"`
	Message string   `json:"message"`
	Models  []string `json:"models"`
}

func (s *SettingsService) log() *slog.Logger {
	if s.Log == nil {
		return slog.Default()
	}
	return s.Log
}

func ctxTimeout() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 15*time.Second)
}

// Load returns the stored settings for the page.
func (s *SettingsService) Load() (*SettingsView, error) {
	ctx, cancel := ctxTimeout()
	defer cancel()
	st, err := s.Store.Settings(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the settings: %w", err)
	}
	masked, loc, err := s.Store.MaskedAPIKey(ctx)
	if err != nil {
		s.log().Warn("settings window: cannot read the API key location", "err", err)
	}
	v := &SettingsView{
		Settings:     st,
		APIKeyMasked: masked,
		KeyLocation:  string(loc),
		Missing:      st.Missing(masked != ""),
		MissingText:  st.MissingText(masked != ""),
		Diagnostics:  s.Diagnostics,
		StartView:    "settings",
		DemoModel:    s.Demo && st.Endpoint == "",
	}
	if s.StartOnDiagnostics {
		v.StartView = "diagnostics"
	}
	if v.Missing == nil {
		v.Missing = []string{}
	}
	if st.Endpoint != "" && s.Probe != nil {
		v.WebSearchNote = s.Probe.WebSearchNote(st.Endpoint)
	}
	v.Presets = s.presets()
	if p := s.presetFor(st.Endpoint); p != nil {
		v.Preset = p.ID
	} else if st.Endpoint != "" {
		v.Preset = "custom"
	}
	if s.KeyNote != nil {
		v.KeyNote = s.KeyNote()
	}
	v.Update = s.updateView(st.Updates)
	usage, err := s.Store.MonthToDate(ctx, time.Local)
	if err != nil {
		s.log().Warn("settings window: cannot read usage", "err", err)
	}
	v.Usage = usageRows(usage)
	v.Report = s.usageReport(ctx, st)
	v.Conversations = s.conversations(ctx)
	v.Prices = engine.PriceEntries(st.Budget.Prices, suggestedPriceModels(st, v))
	v.ReadOnly = s.notWritable()
	s.log().Info("settings page loaded its values", "missing", len(v.Missing))
	return v, nil
}

func usageRows(m map[string]engine.Tokens) []UsageRow {
	rows := []UsageRow{}
	for model, t := range m {
		rows = append(rows, UsageRow{Model: model, Prompt: t.Prompt, Completion: t.Completion, Total: t.Total()})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Model < rows[j].Model })
	return rows
}

// suggestedPriceModels lists the models the price list offers a line for: the configured
// model first, then the conversations' own models, then the models in the usage.
func suggestedPriceModels(st engine.Settings, v *SettingsView) []string {
	models := []string{st.Model}
	for _, c := range v.Conversations {
		models = append(models, c.ModelOverride)
	}
	models = append(models, v.Report.Unpriced...)
	for _, u := range v.Usage {
		models = append(models, u.Model)
	}
	return models
}

// Validate checks the form's values and returns a message per field (empty when fine),
// in engine.Settings.Validate's sentences, for inline display while the user types.
func (s *SettingsService) Validate(req SaveRequest) map[string]string {
	_, out := s.settingsFrom(req)
	return out
}

// settingsFrom builds the settings to store from the form and checks them. Under a cost
// budget a conversation's own model needs a price as much as the configured one does: either
// would stop Clanker at its first use, so the save is refused with the sentence that says
// where to add it, and the form keeps what was typed.
func (s *SettingsService) settingsFrom(req SaveRequest) (engine.Settings, map[string]string) {
	st := req.Settings
	st.Normalize()
	out := map[string]string{}
	if req.Prices != nil {
		prices, msg := engine.PricesFromEntries(req.Prices)
		if msg != "" {
			out[engine.FieldPrices] = msg
		}
		st.Budget.Prices = prices
	}
	var es engine.FieldErrors
	if err := st.Validate(); errors.As(err, &es) {
		for _, e := range es {
			if out[e.Field] == "" {
				out[e.Field] = e.Message
			}
		}
	}
	if out[engine.FieldPrices] == "" && st.Budget.Kind == engine.BudgetCost {
		ctx, cancel := ctxTimeout()
		defer cancel()
		if cs, err := s.Store.Conversations(ctx); err == nil {
			var models []string
			for _, c := range cs {
				models = append(models, c.ModelOverride)
			}
			if missing := st.Budget.Unpriced(models...); len(missing) > 0 {
				out[engine.FieldPrices] = engine.NoPriceMessage(missing[0])
			}
		}
	}
	return st, out
}

// Save validates and stores the settings (and the key, when one was typed). Nothing is
// stored when any field is invalid, so a save never half-applies.
func (s *SettingsService) Save(req SaveRequest) (*SaveResult, error) {
	st, errs := s.settingsFrom(req)
	key := strings.TrimSpace(req.APIKey)
	if strings.ContainsAny(key, " \t\r\n") {
		errs[engine.FieldAPIKey] = "The API key cannot contain spaces or line breaks."
	}
	if len(errs) > 0 {
		return &SaveResult{Errors: errs}, nil
	}
	if msg := s.notWritable(); msg != "" {
		return &SaveResult{Errors: errs, Message: msg}, nil
	}
	ctx, cancel := ctxTimeout()
	defer cancel()
	if _, err := s.Store.SaveSettings(ctx, st); err != nil {
		if msg := s.notWritable(); msg != "" {
			return &SaveResult{Errors: errs, Message: msg}, nil
		}
		return nil, fmt.Errorf("save the settings: %w", err)
	}
	if key != "" || req.ClearAPIKey {
		if req.ClearAPIKey {
			key = ""
		}
		if _, err := s.Store.SetAPIKey(ctx, key); err != nil {
			return &SaveResult{Errors: map[string]string{engine.FieldAPIKey: err.Error()}}, nil
		}
	}
	s.log().Info("settings saved from the settings window")
	v, err := s.Load()
	if err != nil {
		return nil, err
	}
	return &SaveResult{Saved: true, Errors: map[string]string{}, View: v}, nil
}

// testKey is the key Test connection sends to endpoint: the one typed; else the stored one,
// but only to the endpoint it was stored for (choosing another provider must not send the
// old provider's key to the new one); else, for a server on this computer that needs no key,
// its preset's stand-in. With none of them it returns "" and the sentence to show.
func (s *SettingsService) testKey(ctx context.Context, endpoint, typed string) (string, string) {
	if typed != "" {
		return typed, ""
	}
	stored, _, _ := s.Store.APIKey(ctx)
	savedFor := ""
	if stored != "" {
		if st, err := s.Store.Settings(ctx); err == nil {
			savedFor = st.Endpoint
		}
		if savedFor == "" || sameEndpoint(savedFor, endpoint) {
			return stored, ""
		}
	}
	if p := s.presetFor(endpoint); p != nil && p.StandInKey != "" {
		return p.StandInKey, ""
	}
	if stored != "" {
		return "", "Enter the API key for this endpoint: the stored key was saved for " + hostOf(savedFor) +
			", and Clanker sends it nowhere else."
	}
	return "", "Enter an API key first."
}

// hostOf is the host an endpoint names, for sentences ("api.openai.com").
func hostOf(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		return u.Host
	}
	return endpoint
}

// updateView is what the window says about updates under the given settings.
func (s *SettingsService) updateView(u engine.Updates) UpdateView {
	if s.Updates == nil {
		return UpdateView{Status: "The demo never looks for updates."}
	}
	return s.Updates(u)
}

// OpenLink opens one of the pages the window links to (a provider's key page, the page of an
// available update) in the user's browser. Anything else is refused: the page cannot use it
// to open addresses of its own choosing.
func (s *SettingsService) OpenLink(link string) error {
	allowed := false
	for _, p := range s.presets() {
		allowed = allowed || (p.KeyURL != "" && p.KeyURL == link)
	}
	if !allowed && s.Updates != nil {
		ctx, cancel := ctxTimeout()
		st, err := s.Store.Settings(ctx)
		cancel()
		if err == nil {
			u := s.Updates(st.Updates)
			allowed = u.URL != "" && u.URL == link
		}
	}
	if !allowed {
		return fmt.Errorf("the settings window does not open %q", engine.Clip(link, 200))
	}
	if s.OpenURL == nil {
		return errors.New("this window cannot open a browser; the address is " + link)
	}
	s.log().Info("settings window: opening a link in the browser", "url", link)
	return s.OpenURL(link)
}

// TestConnection tries the endpoint with the form's values: it lists the models (when
// the server answers /models) and sends one small request through the same LLM client
// the app uses (Probe), so a wrong key, endpoint or model shows up here rather than in a
// chat.
func (s *SettingsService) TestConnection(req TestRequest) (*TestResult, error) {
	if s.Probe == nil {
		return nil, errors.New("settings window: no connection probe was given")
	}
	endpoint, err := engine.NormalizeEndpoint(req.Endpoint)
	if err != nil {
		return &TestResult{Message: err.Error()}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	key, msg := s.testKey(ctx, endpoint, strings.TrimSpace(req.APIKey))
	if key == "" {
		return &TestResult{Message: msg}, nil
	}
	res := &TestResult{Models: s.Probe.ListModels(ctx, endpoint, key)}
	model := strings.TrimSpace(req.Model)
	if model == "" {
		if len(res.Models) > 0 {
			res.OK = true
			res.Message = fmt.Sprintf("Connected: the server lists %d models. Choose one and test again.", len(res.Models))
		} else {
			res.Message = "Enter a model name first."
		}
		return res, nil
	}
	err = s.Probe.Ping(ctx, endpoint, key, model)
	var le *engine.LLMError
	switch {
	case err == nil:
		res.OK = true
		res.Message = fmt.Sprintf("Connected: %s answered.", model)
	case errors.As(err, &le):
		res.Message = le.UserText
	case errors.Is(err, context.DeadlineExceeded):
		res.Message = "The server did not answer within 45 seconds."
	default:
		// The server answered, but not in Clanker's reply format: the connection works.
		res.OK = true
		res.Message = fmt.Sprintf("Connected: %s answered, though not in Clanker's reply format (%v).", model, err)
	}
	return res, nil
}
