package macos

import (
	"net/url"
	"strconv"
	"strings"
)

// defaultPorts are the ports an origin string leaves out, as browsers do.
var defaultPorts = map[string]int{"http": 80, "https": 443}

// Origin formats the parts of a WKSecurityOrigin (protocol, host, port) as
// scheme://host[:port], the form the shell uses for the Messages origin. WebKit reports
// port 0 when the URL has none; that and the scheme's default port are left out, so the
// same page always gives the same string.
func Origin(protocol, host string, port int) string {
	protocol = strings.ToLower(strings.TrimSuffix(protocol, ":"))
	host = strings.ToLower(host)
	if protocol == "" || host == "" {
		return ""
	}
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		host = "[" + host + "]" // an IPv6 literal, as a URL writes it
	}
	if port <= 0 || defaultPorts[protocol] == port {
		return protocol + "://" + host
	}
	return protocol + "://" + host + ":" + strconv.Itoa(port)
}

// NormalOrigin rewrites an origin string (scheme://host[:port]) the way Origin formats
// one, so that an explicit default port ("https://x:443") compares equal to none. It
// returns "" for anything that is not such an origin.
func NormalOrigin(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") ||
		u.RawQuery != "" || u.Fragment != "" {
		return ""
	}
	port := 0
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 65535 {
			return ""
		}
		port = n
	}
	return Origin(u.Scheme, u.Hostname(), port)
}
