package engine

import (
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// FuzzNormalizeEndpoint feeds arbitrary text to the endpoint check, which runs on what the user
// types and on whatever is stored. An accepted endpoint must be canonical (normalising it again
// changes nothing), use http only for a local host, and carry no credentials, query or fragment;
// a refused one must get one of the documented sentences.
func FuzzNormalizeEndpoint(f *testing.F) {
	for _, s := range []string{
		"https://api.openai.com/v1", " https://API.example.com/v1/ ", "http://127.0.0.1:8080/v1",
		"http://[::1]:1234/", "http://printer.local/v1", "http://evil.com/v1", "https://user:pw@host/v1",
		"https://host/v1?x=1", "https://host/v1#frag", "https://host:/v1", "api.example.com/v1",
		"https:opaque", "ftp://host", "https://", "https://ho st/", "http://localhost./v1",
		"https://host/%2F%2e%2e/", "HTTPS://Host.Example/V1//", "http://127.0.0.2/", "https://héllo.example/",
	} {
		f.Add(s)
	}
	known := []error{ErrEndpointEmpty, ErrEndpointInvalid, ErrEndpointScheme, ErrEndpointNoHost,
		ErrEndpointInsecure, ErrEndpointCredentials, ErrEndpointQueryOrFrag, ErrEndpointWhitespace}
	f.Fuzz(func(t *testing.T, raw string) {
		out, err := NormalizeEndpoint(raw)
		if err != nil {
			for _, k := range known {
				if errors.Is(err, k) {
					return
				}
			}
			t.Fatalf("NormalizeEndpoint(%q) refused with an undocumented error %q", raw, err)
		}
		again, err := NormalizeEndpoint(out)
		if err != nil || again != out {
			t.Fatalf("NormalizeEndpoint(%q) = %q, which normalises again to %q (%v); want it unchanged", raw, out, again, err)
		}
		u, err := url.Parse(out)
		if err != nil {
			t.Fatalf("accepted endpoint %q does not parse: %v", out, err)
		}
		if u.Scheme != "https" && !(u.Scheme == "http" && IsLocalHost(u.Hostname())) {
			t.Fatalf("accepted endpoint %q sends the key over %s to a host that is not local", out, u.Scheme)
		}
		if u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(out, "/") || u.Hostname() == "" {
			t.Fatalf("accepted endpoint %q has credentials, a query, a fragment, a trailing slash or no host", out)
		}
	})
}

// FuzzStoredSettingsJSON feeds arbitrary bytes to the settings loader's path (JSON over the
// defaults, then Clamp), which is what runs on a settings row written by another version or by
// hand. Whatever was stored, the result must be in range, and if it validates it must survive a
// save and load unchanged.
func FuzzStoredSettingsJSON(f *testing.F) {
	def, _ := json.Marshal(DefaultSettings())
	f.Add(def)
	for _, s := range []string{
		`{}`, `null`, `[]`, `{"historySize": -5, "quietStartHour": 99, "inactiveMode": "sometimes"}`,
		`{"historySize": 1e9}`, `{"budget": {"kind": "cost", "monthlyCost": -1}}`,
		`{"budget": {"kind": "cost", "monthlyCost": 5, "prices": {"m": {"promptPerMillion": -3}}}}`,
		`{"endpoint": "https://x.example/v1/", "model": "m", "userName": "  Dana  "}`,
		`{"newsMaxSearches": 0, "quietStopHour": -1}`, `{"userName": "` + strings.Repeat("n", 300) + `"}`,
		`{"historySize": "twenty"}`, "\xff\xfe", `{"budget": {"kind": "tokens", "monthlyTokens": 0}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := DefaultSettings()
		if err := json.Unmarshal(data, &s); err != nil {
			return // the store reports unreadable rows and keeps the defaults
		}
		s.Clamp()
		if s.HistorySize < MinHistorySize || s.HistorySize > MaxHistorySize ||
			s.NewsMaxSearches < MinNewsSearches || s.NewsMaxSearches > MaxNewsSearches ||
			s.QuietStartHour < MinHour || s.QuietStartHour > MaxHour || s.QuietStopHour < MinHour || s.QuietStopHour > MaxHour {
			t.Fatalf("Clamp left a number out of range: %+v", s)
		}
		switch s.InactiveMode {
		case InactiveIgnore, InactiveProcess, InactiveIdle:
		default:
			t.Fatalf("Clamp left an unknown inactive mode %q", s.InactiveMode)
		}
		if s.Budget.validate() != "" || validatePrices(s.Budget.Prices) != "" {
			t.Fatalf("Clamp left an invalid budget %+v (%s%s)", s.Budget, s.Budget.validate(), validatePrices(s.Budget.Prices))
		}
		_ = s.Missing(true)
		_ = s.Missing(false)
		s.Normalize()
		if s.Validate() != nil {
			return
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("valid settings do not encode: %v", err)
		}
		back := DefaultSettings()
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("valid settings do not decode again: %v", err)
		}
		back.Clamp()
		back.Normalize()
		if !reflect.DeepEqual(normalNil(back), normalNil(s)) {
			t.Fatalf("valid settings changed across a save and load:\n saved %+v\nloaded %+v", s, back)
		}
	})
}

// normalNil treats an empty price map like a missing one, as JSON's omitempty does.
func normalNil(s Settings) Settings {
	if len(s.Budget.Prices) == 0 {
		s.Budget.Prices = nil
	}
	return s
}

// FuzzMaskKey checks that the masked key, which the settings window and diagnostics show, never
// reveals a whole key of realistic length.
func FuzzMaskKey(f *testing.F) {
	for _, s := range []string{"sk-proj-abcdefghijklmnop", "xai-0123456789", "short", "", "  sk-with-spaces-around  ", "ключ-ключ-ключ-ключ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		m := MaskKey(key)
		k := strings.TrimSpace(key)
		if len(k) >= 12 && strings.Contains(m, k) {
			t.Fatalf("MaskKey(%q) = %q reveals the whole key", key, m)
		}
	})
}
