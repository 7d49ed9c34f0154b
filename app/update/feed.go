package update

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/clanker-desktop/clanker/app/engine"
)

// DefaultFeed is the project's latest GitHub release, in the form GitHub's REST API gives it
// (drafts and pre-releases are never "latest").
const DefaultFeed = "https://api.github.com/repos/clanker-desktop/clanker/releases/latest"

// ReleasesPage is where the project's releases are listed; a release page from the default
// feed must be inside it.
const ReleasesPage = "https://github.com/clanker-desktop/clanker/releases"

// Limits on what the feed may send: a release object is a few kilobytes; a page of 30
// releases with their notes stays well under a megabyte.
const (
	maxFeedBytes = 1 << 20
	maxReleases  = 100
	maxURLLength = 2048
	// FetchTimeout bounds one check, from connecting to the last byte.
	FetchTimeout = 30 * time.Second
)

// Release is the newest release a feed offers.
type Release struct {
	Version Version
	// URL is the release's page, for the user to read and download from.
	URL string
}

// Fetcher asks a release feed over HTTP.
type Fetcher struct {
	// Client carries the request (default: one with FetchTimeout and the redirect rule
	// below). Tests give one with a short timeout.
	Client *http.Client
	// UserAgent names the app to the feed (GitHub's API refuses requests without one).
	UserAgent string
}

// feedRelease is the part of a GitHub release object the check reads. A custom feed answers
// with one such object, or a list of them (GitHub's /releases).
type feedRelease struct {
	TagName    string `json:"tag_name"`
	HTMLURL    string `json:"html_url"`
	Draft      bool   `json:"draft"`
	Prerelease bool   `json:"prerelease"`
}

// FeedError is a check that failed, in a sentence for the settings window and the log.
type FeedError struct {
	Sentence string
	Err      error
}

func (e *FeedError) Error() string {
	if e.Err == nil {
		return e.Sentence
	}
	return e.Sentence + ": " + e.Err.Error()
}

func (e *FeedError) Unwrap() error { return e.Err }

func feedErr(err error, format string, a ...any) error {
	return &FeedError{Sentence: fmt.Sprintf(format, a...), Err: err}
}

// safeRedirect follows at most three redirects, each to an address a feed may have (https,
// or http on this computer), so a redirect cannot move the check onto plain http.
func safeRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 3 {
		return errors.New("too many redirects")
	}
	if engine.FeedProblem(req.URL.String()) != "" {
		return fmt.Errorf("redirected to %s, which is not https", req.URL.Redacted())
	}
	return nil
}

func (f Fetcher) client() *http.Client {
	if f.Client != nil {
		return f.Client
	}
	return &http.Client{Timeout: FetchTimeout, CheckRedirect: safeRedirect}
}

// Fetch asks feed for its newest release that is not a draft: among the releases it lists,
// the one with the highest version; pre-releases count only when allowPre is set. Anything
// the feed sends that is not a usable release is an error that says what was wrong, and
// nothing from it is used.
func (f Fetcher) Fetch(ctx context.Context, feed string, allowPre bool) (Release, error) {
	if feed == "" {
		feed = DefaultFeed
	}
	if msg := engine.FeedProblem(feed); msg != "" {
		return Release{}, feedErr(nil, "%s", strings.TrimSuffix(msg, "."))
	}
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, feed, nil)
	if err != nil {
		return Release{}, feedErr(err, "the release feed's address is not usable")
	}
	req.Header.Set("Accept", "application/vnd.github+json, application/json")
	if f.UserAgent != "" {
		req.Header.Set("User-Agent", f.UserAgent)
	}
	client := f.client()
	limit := FetchTimeout
	if client.Timeout > 0 && client.Timeout < limit {
		limit = client.Timeout
	}
	resp, err := client.Do(req)
	if err != nil {
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			return Release{}, feedErr(nil, "the release feed did not answer within %s", limit)
		}
		return Release{}, feedErr(err, "the release feed could not be reached")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return Release{}, feedErr(nil, "the release feed answered %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxFeedBytes+1))
	if err != nil {
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			return Release{}, feedErr(nil, "the release feed did not finish its answer within %s", limit)
		}
		return Release{}, feedErr(err, "the release feed's answer broke off")
	}
	if len(body) > maxFeedBytes {
		return Release{}, feedErr(nil, "the release feed's answer is larger than %d bytes", maxFeedBytes)
	}
	return parseFeed(body, feed, allowPre)
}

// parseFeed reads the feed's answer: one release object or a list of them.
func parseFeed(body []byte, feed string, allowPre bool) (Release, error) {
	var list []feedRelease
	trimmed := strings.TrimSpace(string(body))
	switch {
	case strings.HasPrefix(trimmed, "["):
		if err := json.Unmarshal(body, &list); err != nil {
			return Release{}, feedErr(err, "the release feed's answer is not a list of releases")
		}
	case strings.HasPrefix(trimmed, "{"):
		var one feedRelease
		if err := json.Unmarshal(body, &one); err != nil {
			return Release{}, feedErr(err, "the release feed's answer is not a release")
		}
		list = []feedRelease{one}
	default:
		return Release{}, feedErr(nil, "the release feed's answer is not JSON")
	}
	if len(list) > maxReleases {
		list = list[:maxReleases]
	}
	var best *Release
	var problem string
	for _, r := range list {
		if r.Draft || (r.Prerelease && !allowPre) {
			continue
		}
		v, ok := ParseVersion(strings.TrimSpace(r.TagName))
		if !ok {
			problem = fmt.Sprintf("the release feed names a version %s that is not of the form 1.2.3", strconvQuote(r.TagName))
			continue
		}
		if len(v.Pre) > 0 && !allowPre {
			continue
		}
		page, msg := releasePage(r.HTMLURL, feed)
		if msg != "" {
			problem = msg
			continue
		}
		if best == nil || v.Compare(best.Version) > 0 {
			best = &Release{Version: v, URL: page}
		}
	}
	if best == nil {
		if problem == "" {
			problem = "the release feed lists no release"
		}
		return Release{}, feedErr(nil, "%s", problem)
	}
	return *best, nil
}

// releasePage checks the page address a feed gives for a release, which the user is invited
// to open: https (or http on this computer, as the feed may be for tests), no credentials,
// nothing to trip a menu label; from the default feed it must be one of the project's own
// release pages.
func releasePage(raw, feed string) (string, string) {
	raw = strings.TrimSpace(raw)
	bad := "the release feed gives a release page that is not an https address"
	if raw == "" || len(raw) > maxURLLength || strings.ContainsAny(raw, " \t\r\n") || engine.FeedProblem(raw) != "" {
		return "", bad
	}
	u, err := url.Parse(raw)
	if err != nil || u.User != nil {
		return "", bad
	}
	if feed == DefaultFeed && !strings.HasPrefix(raw, ReleasesPage+"/") {
		return "", "the project's release feed gives a release page outside " + ReleasesPage
	}
	return u.String(), ""
}
