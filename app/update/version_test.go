package update

import (
	"strings"
	"testing"
	"time"
)

func TestVersionsCompareAsSemanticVersioningSays(t *testing.T) {
	// Each version is older than the next one.
	order := []string{
		"0.9.9", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
		"1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.2.0", "1.10.0", "2.0.0",
	}
	for i := range order {
		for j := range order {
			a, okA := ParseVersion(order[i])
			b, okB := ParseVersion(order[j])
			if !okA || !okB {
				t.Fatalf("%q or %q did not parse", order[i], order[j])
			}
			want := sign(i - j)
			if got := a.Compare(b); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
}

func TestBuildMetadataAndTheVPrefixDoNotMakeAVersionNewer(t *testing.T) {
	for _, c := range [][2]string{
		{"1.2.3", "v1.2.3"},
		{"1.2.3", "1.2.3+3.g1a2b3c4"},
		{"1.2.3", "1.2.3+3.g1a2b3c4.dirty"},
		{"1.2.3-rc.1", "1.2.3-rc.1+build.7"},
	} {
		a, _ := ParseVersion(c[0])
		b, ok := ParseVersion(c[1])
		if !ok || a.Compare(b) != 0 {
			t.Errorf("%s and %s should be the same release (parsed: %v)", c[0], c[1], ok)
		}
	}
	v, _ := ParseVersion("v1.2.3-rc.1+5.gabc")
	if v.String() != "1.2.3-rc.1" {
		t.Errorf("String() = %q, want 1.2.3-rc.1 (no v, no build metadata)", v.String())
	}
}

func TestOnlyVersionsOfTheRightFormParse(t *testing.T) {
	for _, bad := range []string{
		"", "dev", "1.2", "1.2.3.4", "01.2.3", "1.2.3-", "1.2.3+", "1.2.3-rc..1", "1.2.3 ", " 1.2.3",
		"1.2.3-rc.1\n", "1.2.3-<script>", "nightly", "v", strings.Repeat("1", 70) + ".0.0",
		"1.2.3-" + strings.Repeat("a", 70),
	} {
		if _, ok := ParseVersion(bad); ok {
			t.Errorf("ParseVersion(%q) accepted it", bad)
		}
	}
}

// A development build or an untagged snapshot does not check; a release or a build made after
// a release tag does.
func TestOnlyReleaseBuildsCheck(t *testing.T) {
	for _, c := range []struct {
		version string
		checks  bool
	}{
		{"dev", false},
		{"", false},
		{"0.0.0-dev", false},
		{"0.0.0-dev+g1a2b3c4", false},
		{"0.0.0-dev+g1a2b3c4.dirty", false},
		{"1.2.3", true},
		{"1.2.3+3.g1a2b3c4", true},
		{"0.1.0", true},
		{"2.0.0-rc.1", true},
	} {
		_, why := Checkable(c.version)
		if (why == "") != c.checks {
			t.Errorf("Checkable(%q): reason %q; want checks=%v", c.version, why, c.checks)
		}
	}
}

func TestWhatIsOffered(t *testing.T) {
	for _, c := range []struct {
		current, latest string
		offered         bool
	}{
		{"1.2.3", "1.2.4", true},
		{"1.2.3", "1.2.3", false},
		{"1.2.3+3.g1a2b3c4", "1.2.3", false}, // built after the 1.2.3 tag: already has it
		{"1.2.3+3.g1a2b3c4", "1.2.4", true},
		{"1.2.4", "1.2.3", false},
		{"1.2.3", "1.3.0-rc.1", false}, // a release build is not offered a release candidate
		{"1.3.0-rc.1", "1.3.0-rc.2", true},
		{"1.3.0-rc.1", "1.3.0", true},
		{"1.3.0-rc.2", "1.3.0-rc.1", false},
	} {
		cur, _ := ParseVersion(c.current)
		latest, _ := ParseVersion(c.latest)
		if got := Offered(cur, latest); got != c.offered {
			t.Errorf("Offered(%s, %s) = %v, want %v", c.current, c.latest, got, c.offered)
		}
	}
}

func TestACheckIsDueOnceADay(t *testing.T) {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		now  time.Time
		last time.Time
		due  bool
	}{
		{"never checked", base, time.Time{}, true},
		{"checked a minute ago", base, base.Add(-time.Minute), false},
		{"checked 23h59m ago", base, base.Add(-Interval + time.Minute), false},
		{"checked a day ago", base, base.Add(-Interval), true},
		{"checked a week ago", base, base.Add(-7 * Interval), true},
		{"the clock went back an hour", base, base.Add(time.Hour), false},
		{"the clock went back a year", base, base.AddDate(1, 0, 0), true},
	} {
		if got := Due(c.now, c.last); got != c.due {
			t.Errorf("%s: Due = %v, want %v", c.name, got, c.due)
		}
	}
}

func TestNoticeFollowsTheStateAndTheSettings(t *testing.T) {
	page := ReleasesPage + "/tag/v1.3.0"
	st := State{Latest: "1.3.0", URL: page}
	if n := NoticeFor("1.2.0", true, "", st); n.Version != "1.3.0" || n.URL != page || n.Label() != "Clanker 1.3.0 is available" {
		t.Fatalf("notice = %+v %q, want Clanker 1.3.0 with its page", n, n.Label())
	}
	for _, c := range []struct {
		name    string
		current string
		check   bool
		feed    string
		st      State
	}{
		{"checks turned off", "1.2.0", false, "", st},
		{"a development build", "dev", true, "", st},
		{"already on that release", "1.3.0", true, "", st},
		{"a state from another feed", "1.2.0", true, "https://example.org/feed", st},
		{"never checked", "1.2.0", true, "", State{}},
		{"a page outside the project's releases", "1.2.0", true, "", State{Latest: "1.3.0", URL: "https://example.org/x"}},
		{"a stored version that does not parse", "1.2.0", true, "", State{Latest: "1.3", URL: page}},
	} {
		if n := NoticeFor(c.current, c.check, c.feed, c.st); n != (Notice{}) {
			t.Errorf("%s: notice %+v, want none", c.name, n)
		}
	}
}
