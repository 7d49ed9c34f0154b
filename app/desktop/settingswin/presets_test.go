package settingswin

import (
	"net/url"
	"testing"

	"github.com/clanker-desktop/clanker/app/engine"
)

// Every preset is an endpoint the settings accept; hosted ones are https and name a key page
// (https too, as OpenLink opens it); the ones on this computer are on loopback and carry the
// stand-in key their servers ignore.
func TestThePresetsAreUsableEndpoints(t *testing.T) {
	ids := map[string]bool{}
	for _, p := range DefaultPresets {
		if ids[p.ID] || p.ID == "" || p.ID == "custom" || p.Name == "" || p.Hint == "" {
			t.Errorf("preset %+v: ids must be unique and not \"custom\", with a name and a hint", p)
		}
		ids[p.ID] = true
		n, err := engine.NormalizeEndpoint(p.Endpoint)
		if err != nil || n != p.Endpoint {
			t.Errorf("%s: endpoint %q normalises to %q (%v); it must be stored as it is offered", p.ID, p.Endpoint, n, err)
			continue
		}
		u, _ := url.Parse(p.Endpoint)
		local := engine.IsLocalHost(u.Hostname())
		switch {
		case local && (p.StandInKey == "" || p.KeyURL != ""):
			t.Errorf("%s: a server on this computer needs a stand-in key and no key page", p.ID)
		case !local && (u.Scheme != "https" || p.StandInKey != ""):
			t.Errorf("%s: a hosted provider is https and needs the user's own key", p.ID)
		case !local:
			if k, err := url.Parse(p.KeyURL); err != nil || k.Scheme != "https" {
				t.Errorf("%s: key page %q is not https", p.ID, p.KeyURL)
			}
		}
	}
	for _, want := range []string{"openai", "xai", "openrouter", "ollama", "lmstudio"} {
		if !ids[want] {
			t.Errorf("no %s preset", want)
		}
	}
}

func TestSameEndpointIgnoresCaseAndATrailingSlash(t *testing.T) {
	if !sameEndpoint("https://API.openai.com/v1/", "https://api.openai.com/v1") {
		t.Error("a trailing slash or the host's case made two endpoints differ")
	}
	if sameEndpoint("https://api.openai.com/v1", "https://api.x.ai/v1") {
		t.Error("two providers' endpoints compared equal")
	}
}
