package settingswin

import (
	"strings"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Preset is an OpenAI-compatible provider the settings window offers by name: choosing it
// fills the endpoint, says where the key comes from, and Test connection then lists the
// provider's models. "Custom endpoint" (no preset) keeps the field free to type in.
type Preset struct {
	// ID is the preset's stable name on the page ("openai").
	ID string `json:"id"`
	// Name is what the list shows.
	Name string `json:"name"`
	// Endpoint is the provider's OpenAI-compatible base URL.
	Endpoint string `json:"endpoint"`
	// KeyURL is the page where an account's API keys are made ("" for a server on this
	// computer, which needs none). The window opens it in the browser through OpenLink.
	KeyURL string `json:"keyUrl"`
	// Hint is one sentence on getting started with the provider.
	Hint string `json:"hint"`
	// StandInKey is what Clanker sends as the key to a server that asks for none (Ollama and
	// LM Studio accept any); "" for a provider that needs a real key.
	StandInKey string `json:"standInKey"`
}

// DefaultPresets are the providers the settings window offers: the three hosted services
// most people use with OpenAI-compatible clients, and the two common servers that run a
// model on the user's own computer, on loopback.
var DefaultPresets = []Preset{
	{ID: "openai", Name: "OpenAI", Endpoint: "https://api.openai.com/v1", KeyURL: "https://platform.openai.com/api-keys",
		Hint: "Create a key under API keys in your OpenAI account, then Test connection to list the models."},
	{ID: "xai", Name: "xAI (Grok)", Endpoint: "https://api.x.ai/v1", KeyURL: "https://console.x.ai",
		Hint: "Create a key under API Keys in the xAI console, then Test connection to list the models."},
	{ID: "openrouter", Name: "OpenRouter", Endpoint: "https://openrouter.ai/api/v1", KeyURL: "https://openrouter.ai/settings/keys",
		Hint: "One key for many providers' models: create it under Keys in your OpenRouter account, then Test connection to list them."},
	{ID: "ollama", Name: "Ollama (this computer)", Endpoint: "http://localhost:11434/v1", StandInKey: "ollama",
		Hint: "Runs on this computer and needs no key: start Ollama, pull a model (ollama pull llama3.2), then Test connection to list the models you have."},
	{ID: "lmstudio", Name: "LM Studio (this computer)", Endpoint: "http://localhost:1234/v1", StandInKey: "lm-studio",
		Hint: "Runs on this computer and needs no key: load a model and start the local server in LM Studio's Developer tab, then Test connection."},
}

// presets returns the presets the window offers (DefaultPresets unless the service was given
// others, as the tests do to point them at the fake server).
func (s *SettingsService) presets() []Preset {
	if s.Presets != nil {
		return s.Presets
	}
	return DefaultPresets
}

// sameEndpoint reports whether two endpoints name the same server and path once normalised
// (a trailing slash or a capital in the host makes no difference).
func sameEndpoint(a, b string) bool {
	na, errA := engine.NormalizeEndpoint(a)
	nb, errB := engine.NormalizeEndpoint(b)
	if errA != nil || errB != nil {
		return strings.TrimSpace(a) == strings.TrimSpace(b)
	}
	return na == nb
}

// presetFor is the preset whose endpoint the stored endpoint is (nil for a custom one).
func (s *SettingsService) presetFor(endpoint string) *Preset {
	if strings.TrimSpace(endpoint) == "" {
		return nil
	}
	for i, p := range s.presets() {
		if sameEndpoint(p.Endpoint, endpoint) {
			return &s.presets()[i]
		}
	}
	return nil
}
