package engine

import (
	"errors"
	"testing"
)

func TestNormalizeEndpointTable(t *testing.T) {
	cases := []struct {
		in      string
		want    string
		wantErr error
	}{
		// Accepted, normalised.
		{"https://api.openai.com/v1", "https://api.openai.com/v1", nil},
		{"https://api.openai.com/v1/", "https://api.openai.com/v1", nil},
		{"  https://api.x.ai/v1//  ", "https://api.x.ai/v1", nil},
		{"HTTPS://API.Example.COM/v1", "https://api.example.com/v1", nil},
		{"https://api.example.com", "https://api.example.com", nil},
		{"https://api.example.com/", "https://api.example.com", nil},
		{"https://api.example.com:8443/openai/v1", "https://api.example.com:8443/openai/v1", nil},
		{"http://localhost:11434/v1", "http://localhost:11434/v1", nil},
		{"http://LOCALHOST/v1/", "http://localhost/v1", nil},
		{"http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1", nil},
		{"http://[::1]:8080/v1", "http://[::1]:8080/v1", nil},
		{"http://gpu-box.local:8000/v1", "http://gpu-box.local:8000/v1", nil},
		{"https://[2001:db8::1]/v1", "https://[2001:db8::1]/v1", nil},
		// Rejected, each with its own reason.
		{"", "", ErrEndpointEmpty},
		{"   ", "", ErrEndpointEmpty},
		{"api.openai.com/v1", "", ErrEndpointScheme},
		{"ftp://api.example.com", "", ErrEndpointScheme},
		{"ws://localhost:8080", "", ErrEndpointScheme},
		{"javascript:alert(1)", "", ErrEndpointScheme},
		{"file:///etc/passwd", "", ErrEndpointScheme},
		{"http://api.openai.com/v1", "", ErrEndpointInsecure},
		{"http://192.168.1.20:8080/v1", "", ErrEndpointInsecure},
		{"http://127.0.0.2/v1", "", ErrEndpointInsecure},
		{"http://local/v1", "", ErrEndpointInsecure},
		{"http://.local/v1", "", ErrEndpointInsecure},
		{"http://localhost.evil.com/v1", "", ErrEndpointInsecure},
		{"http://evil.local.com/v1", "", ErrEndpointInsecure},
		{"https://", "", ErrEndpointNoHost},
		{"https:///v1", "", ErrEndpointNoHost},
		{"https://user:pass@api.example.com/v1", "", ErrEndpointCredentials},
		{"https://api.example.com/v1?key=1", "", ErrEndpointQueryOrFrag},
		{"https://api.example.com/v1#x", "", ErrEndpointQueryOrFrag},
		{"https://api.example.com/v 1", "", ErrEndpointWhitespace},
		{"https://api.example.com:/v1", "", ErrEndpointInvalid},
		{"https://exa mple.com", "", ErrEndpointWhitespace},
		{"https://%zz", "", ErrEndpointInvalid},
	}
	for _, c := range cases {
		got, err := NormalizeEndpoint(c.in)
		if c.wantErr != nil {
			if !errors.Is(err, c.wantErr) {
				t.Errorf("NormalizeEndpoint(%q): want error %q, got %q (err %v)", c.in, c.wantErr, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("NormalizeEndpoint(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestNormalizedEndpointIsStable(t *testing.T) {
	for _, in := range []string{"https://api.x.ai/v1/", "http://[::1]:1/a/b/", "https://h.example/x%20y"} {
		once, err := NormalizeEndpoint(in)
		if err != nil {
			t.Fatalf("NormalizeEndpoint(%q): %v", in, err)
		}
		twice, err := NormalizeEndpoint(once)
		if err != nil || twice != once {
			t.Errorf("normalising %q twice changed it: %q then %q (%v)", in, once, twice, err)
		}
	}
}

func TestSettingsNormalizeTrimsAndStripsTrailingSlash(t *testing.T) {
	s := DefaultSettings()
	s.Endpoint, s.Model, s.UserName = " https://api.openai.com/v1/ ", " gpt-5 ", " Ann "
	s.Normalize()
	if s.Endpoint != "https://api.openai.com/v1" || s.Model != "gpt-5" || s.UserName != "Ann" {
		t.Errorf("Normalize gave %q %q %q", s.Endpoint, s.Model, s.UserName)
	}
}
