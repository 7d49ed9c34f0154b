package update

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The feed is asked over real HTTP on loopback: a server that answers as GitHub's API does,
// one that is down, one that is slow, and ones that answer with something that is not a usable
// release. Every failure is a FeedError whose sentence says what was wrong.

const page = "https://example.org/clanker/releases/tag/v1.3.0"

func serve(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/repos/o/r/releases/latest"
}

func answer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

func fetch(t *testing.T, feed string, allowPre bool) (Release, error) {
	t.Helper()
	f := Fetcher{Client: &http.Client{Timeout: 2 * time.Second, CheckRedirect: safeRedirect}, UserAgent: "Clanker/1.2.0"}
	return f.Fetch(context.Background(), feed, allowPre)
}

func TestTheLatestReleaseIsReadLikeGitHubGivesIt(t *testing.T) {
	var ua, accept string
	feed := serve(t, func(w http.ResponseWriter, r *http.Request) {
		ua, accept = r.Header.Get("User-Agent"), r.Header.Get("Accept")
		answer(200, `{"tag_name":"v1.3.0","name":"Clanker 1.3.0","html_url":"`+page+`","draft":false,"prerelease":false,
			"assets":[{"name":"x"}],"body":"notes"}`)(w, r)
	})
	rel, err := fetch(t, feed, false)
	if err != nil {
		t.Fatal(err)
	}
	if rel.Version.String() != "1.3.0" || rel.URL != page {
		t.Fatalf("release = %s %s, want 1.3.0 at %s", rel.Version, rel.URL, page)
	}
	if ua != "Clanker/1.2.0" || !strings.Contains(accept, "application/vnd.github+json") {
		t.Errorf("request headers: User-Agent %q, Accept %q", ua, accept)
	}
}

func TestFromAListTheNewestReleaseCountsAndPreReleasesOnlyWhenAsked(t *testing.T) {
	feed := serve(t, answer(200, `[
		{"tag_name":"v1.4.0-rc.1","html_url":"https://example.org/r/v1.4.0-rc.1","prerelease":true},
		{"tag_name":"v1.5.0","html_url":"https://example.org/r/v1.5.0","draft":true},
		{"tag_name":"v1.2.9","html_url":"https://example.org/r/v1.2.9"},
		{"tag_name":"v1.3.1","html_url":"https://example.org/r/v1.3.1"},
		{"tag_name":"nightly","html_url":"https://example.org/r/nightly"}]`))
	rel, err := fetch(t, feed, false)
	if err != nil || rel.Version.String() != "1.3.1" || rel.URL != "https://example.org/r/v1.3.1" {
		t.Fatalf("without pre-releases: %v %v, want 1.3.1 (drafts, release candidates and unparsable tags left out)", rel, err)
	}
	rel, err = fetch(t, feed, true)
	if err != nil || rel.Version.String() != "1.4.0-rc.1" {
		t.Fatalf("with pre-releases: %v %v, want 1.4.0-rc.1", rel, err)
	}
}

func TestAFeedThatIsDownIsOneSentence(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	feed := "http://" + ln.Addr().String() + "/latest"
	ln.Close() // nothing listens there any more
	_, err = fetch(t, feed, false)
	var fe *FeedError
	if !errors.As(err, &fe) || fe.Sentence != "the release feed could not be reached" {
		t.Fatalf("a feed that is down: %v, want \"the release feed could not be reached\"", err)
	}
}

// A feed that never answers, and one that starts its answer and then stalls, end at the
// client's timeout with a sentence that says so. The bound on how long the test waits is
// generous; what is checked is the outcome.
func TestASlowFeedEndsAtTheTimeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	hang := serve(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	stall := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		_, _ = w.Write([]byte(`{"tag_name":"v1.3.0",`))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	for _, c := range []struct{ name, feed, want string }{
		{"no answer", hang, "the release feed did not answer within 300ms"},
		{"a stalled answer", stall, "the release feed did not finish its answer within 300ms"},
	} {
		f := Fetcher{Client: &http.Client{Timeout: 300 * time.Millisecond}}
		done := make(chan error, 1)
		go func() { _, err := f.Fetch(context.Background(), c.feed, false); done <- err }()
		select {
		case err := <-done:
			var fe *FeedError
			if !errors.As(err, &fe) || fe.Sentence != c.want {
				t.Errorf("%s: %v, want %q", c.name, err, c.want)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%s: the fetch was still waiting after 60 s; the client's timeout did not end it", c.name)
		}
	}
}

func TestAMalformedFeedIsRefusedWithWhatWasWrong(t *testing.T) {
	huge := `{"tag_name":"v1.3.0","html_url":"` + page + `","body":"` + strings.Repeat("x", 1<<20) + `"}`
	for _, c := range []struct {
		name string
		h    http.HandlerFunc
		want string
	}{
		{"an HTML page", answer(200, "<html><body>Maintenance</body></html>"), "the release feed's answer is not JSON"},
		{"broken JSON", answer(200, `{"tag_name":"v1.3.0",`), "the release feed's answer is not a release"},
		{"a list of the wrong things", answer(200, `[1,2,3]`), "the release feed's answer is not a list of releases"},
		{"an object without a release", answer(200, `{"message":"hello"}`), "that is not of the form 1.2.3"},
		{"an empty list", answer(200, `[]`), "the release feed lists no release"},
		{"a tag that is not a version", answer(200, `{"tag_name":"latest","html_url":"`+page+`"}`), `names a version "latest" that is not of the form 1.2.3`},
		{"a script for a page", answer(200, `{"tag_name":"v1.3.0","html_url":"javascript:alert(1)"}`), "not an https address"},
		{"a page over plain http", answer(200, `{"tag_name":"v1.3.0","html_url":"http://example.org/r"}`), "not an https address"},
		{"a page with a password", answer(200, `{"tag_name":"v1.3.0","html_url":"https://u:p@example.org/r"}`), "not an https address"},
		{"a page with a line break", answer(200, `{"tag_name":"v1.3.0","html_url":"https://example.org/r\nClanker 9.9.9"}`), "not an https address"},
		{"more than a megabyte", answer(200, huge), "larger than 1048576 bytes"},
		{"GitHub's rate limit", answer(403, `{"message":"API rate limit exceeded"}`), "the release feed answered 403 Forbidden"},
		{"no release yet", answer(404, `{"message":"Not Found"}`), "the release feed answered 404 Not Found"},
		{"a redirect to plain http", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://example.org/feed", http.StatusFound)
		}, "could not be reached"},
	} {
		_, err := fetch(t, serve(t, c.h), false)
		var fe *FeedError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a FeedError saying %q", c.name, err, c.want)
		}
	}
}

// From the project's own feed, only the project's own release pages are linked to.
func TestTheDefaultFeedLinksOnlyToTheProjectsReleases(t *testing.T) {
	ok := `{"tag_name":"v1.3.0","html_url":"` + ReleasesPage + `/tag/v1.3.0"}`
	if rel, err := parseFeed([]byte(ok), DefaultFeed, false); err != nil || rel.URL != ReleasesPage+"/tag/v1.3.0" {
		t.Fatalf("the project's own page: %v %v", rel, err)
	}
	for _, bad := range []string{"https://example.org/clanker/releases/tag/v1.3.0", "https://github.com/someone-else/clanker/releases/tag/v1.3.0"} {
		if _, err := parseFeed([]byte(`{"tag_name":"v1.3.0","html_url":"`+bad+`"}`), DefaultFeed, false); err == nil {
			t.Errorf("the default feed's release page %s was accepted", bad)
		}
	}
}

func TestAFeedAddressThatIsNotHTTPSIsNotAsked(t *testing.T) {
	_, err := fetch(t, "http://example.org/feed", false)
	var fe *FeedError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "https") {
		t.Fatalf("an http feed off this computer: %v, want a refusal that names https", err)
	}
}
