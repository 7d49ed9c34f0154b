package run

import (
	"github.com/clanker-desktop/clanker/app/engine"
	"github.com/clanker-desktop/clanker/app/settings"
)

// missingLabels are the words the page banner uses for each missing setting.
var missingLabels = map[string]string{
	settings.FieldEndpoint: "API endpoint",
	settings.FieldAPIKey:   "API key",
	settings.FieldModel:    "model",
	settings.FieldUserName: "your name",
}

// EngineSettings turns the stored settings into what the engine needs. hasKey says
// whether an API key is stored (Settings never holds it).
func EngineSettings(st settings.Settings, hasKey bool) engine.Settings {
	es := engine.DefaultSettings()
	es.Missing = nil
	for _, f := range st.Missing(hasKey) {
		l := missingLabels[f]
		if l == "" {
			l = f
		}
		es.Missing = append(es.Missing, l)
	}
	es.UserName = st.UserName
	es.Relaxed = st.RelaxedResponsiveness
	es.Inactive = engine.InactivePolicy(st.InactiveMode)
	es.WebSearch = st.WebSearch
	es.News = st.NewsSearch
	es.NewsMaxSearches = st.NewsMaxSearches
	es.QuietStart = st.QuietStartHour
	es.QuietStop = st.QuietStopHour
	es.HistorySize = st.HistorySize
	if es.Validate() != nil {
		// Stored settings are clamped on load, so this only happens if the two packages'
		// limits drift apart; the engine's defaults are the safe fallback.
		d := engine.DefaultSettings()
		d.Missing, d.UserName = es.Missing, es.UserName
		return d
	}
	return es
}

// DemoEndpoint fills what the demo needs when the demo data has no real endpoint: the
// in-process fake model, a placeholder key, a model name and a user name. A real
// endpoint the user configured for the demo data is kept with its own key and model.
func DemoEndpoint(st settings.Settings, key, fakeURL string) (settings.Settings, string) {
	if st.Endpoint != "" {
		return st, key
	}
	st.Endpoint = fakeURL
	key = "demo-key-not-secret"
	st.Model = "clanker-demo"
	if st.UserName == "" {
		st.UserName = "Demo User"
	}
	return st, key
}
