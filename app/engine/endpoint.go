package engine

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Endpoint rejection messages. Each is a sentence the settings window can show
// as it is; the same sentence reaches the user's banner when a stored endpoint
// fails the check the app makes before every request.
var (
	ErrEndpointEmpty       error = Problem("The API endpoint is required.")
	ErrEndpointInvalid     error = Problem("The API endpoint is not a valid URL; it should look like https://api.example.com/v1.")
	ErrEndpointScheme      error = Problem("The API endpoint must start with http:// or https://.")
	ErrEndpointNoHost      error = Problem("The API endpoint has no host name.")
	ErrEndpointInsecure    error = Problem("Only local endpoints (localhost, 127.0.0.1, ::1 or a .local name) may use http://; use https:// for anything else.")
	ErrEndpointCredentials error = Problem("The API endpoint must not contain a user name or password; put the key in the API key field.")
	ErrEndpointQueryOrFrag error = Problem("The API endpoint must not contain a query (?...) or fragment (#...).")
	ErrEndpointWhitespace  error = Problem("The API endpoint must not contain spaces.")
	ErrEndpointTooLong     error = Problem(fmt.Sprintf("The API endpoint is too long (at most %d characters); it should look like https://api.example.com/v1.", MaxEndpointLength))
)

// NormalizeEndpoint checks an endpoint URL and returns it in canonical form: no
// surrounding space and no trailing slash, so the client can append
// "/chat/completions" without producing "//". The settings window and the
// config command call it when a value is saved, and the app calls it again when
// it builds the client for each request (app/run's llmConfig), so an older or
// hand-edited endpoint in the database is held to the same rules and the key is
// never sent to an endpoint that fails them.
//
// Rules: http or https only; http only for localhost, 127.0.0.1, ::1 and
// names ending in .local; a host is required; no user info, query or fragment.
func NormalizeEndpoint(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", ErrEndpointEmpty
	}
	if len(s) > MaxEndpointLength {
		return "", ErrEndpointTooLong
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return "", ErrEndpointWhitespace
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", ErrEndpointInvalid
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		// This also covers "api.example.com/v1", which parses as a bare path.
		return "", ErrEndpointScheme
	}
	if u.Opaque != "" {
		return "", ErrEndpointInvalid
	}
	if u.User != nil {
		return "", ErrEndpointCredentials
	}
	host := u.Hostname()
	if host == "" {
		return "", ErrEndpointNoHost
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(s, "#") {
		return "", ErrEndpointQueryOrFrag
	}
	if port := u.Port(); port == "" && strings.HasSuffix(u.Host, ":") {
		return "", ErrEndpointInvalid
	}
	if scheme == "http" && !IsLocalHost(host) {
		return "", ErrEndpointInsecure
	}
	u.Scheme = scheme
	u.Host = strings.ToLower(u.Host)
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u.String(), nil
}

// IsLocalHost reports whether host (without port) names this machine or the
// local network by mDNS, the only hosts allowed over plain http: a key sent
// over http to anywhere else could be read on the way.
func IsLocalHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || h == "127.0.0.1" || h == "::1" {
		return true
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.Equal(net.IPv6loopback) || ip.Equal(net.IPv4(127, 0, 0, 1))
	}
	return strings.HasSuffix(h, ".local") && len(h) > len(".local")
}

// MaskKey returns a form of an API key that is safe to show: enough to tell
// two keys apart, never enough to use one. Short keys are shown as dots only,
// since revealing four characters of an eight-character key gives too much
// away.
func MaskKey(key string) string {
	k := strings.TrimSpace(key)
	switch {
	case k == "":
		return ""
	case len(k) < 12:
		return "••••"
	default:
		prefix := k[:3]
		if i := strings.IndexByte(k, '-'); i > 0 && i < 5 {
			prefix = k[:i+1]
		}
		return prefix + "…" + k[len(k)-4:]
	}
}
