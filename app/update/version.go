// Package update tells the user when a newer Clanker is released: it asks a release feed (the
// project's GitHub releases unless the settings name another) at most once a day and reports
// "Clanker X is available" with the release page's address. It never downloads or installs
// anything; the user follows the link.
//
// The decisions are plain functions with no I/O: which builds check at all and whether a
// release is newer (version.go), and when a check is due (schedule.go). The feed's HTTP and
// JSON (feed.go), the small state file in the data folder (state.go) and the loop that ties
// them to a clock (checker.go) are around them. app/run runs one Checker in the app (never in
// the demo) and shows its notices in the menus; the settings window reads the state file.
package update

import (
	"regexp"
	"strconv"
	"strings"
)

// Version is a release version in semantic versioning's form: MAJOR.MINOR.PATCH, an optional
// pre-release ("-rc.1") and optional build metadata ("+3.g1a2b3c4", which build/dist.sh adds
// to builds made after a tag and which never makes a version newer).
type Version struct {
	Major, Minor, Patch int
	Pre                 []string
	Build               string
}

// MaxVersionLength bounds a version read from the feed; real ones are far shorter.
const MaxVersionLength = 64

var versionRE = regexp.MustCompile(`^v?(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})` +
	`(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$`)

// ParseVersion reads "1.2.3", "v1.2.3", "1.2.3-rc.1" or "1.2.3+3.g1a2b3c4".
func ParseVersion(s string) (Version, bool) {
	if len(s) > MaxVersionLength {
		return Version{}, false
	}
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return Version{}, false
	}
	var v Version
	v.Major, _ = strconv.Atoi(m[1])
	v.Minor, _ = strconv.Atoi(m[2])
	v.Patch, _ = strconv.Atoi(m[3])
	if m[4] != "" {
		v.Pre = strings.Split(m[4], ".")
	}
	v.Build = m[5]
	return v, true
}

// String is the version without a "v" and without build metadata: what the menus show.
func (v Version) String() string {
	s := strconv.Itoa(v.Major) + "." + strconv.Itoa(v.Minor) + "." + strconv.Itoa(v.Patch)
	if len(v.Pre) > 0 {
		s += "-" + strings.Join(v.Pre, ".")
	}
	return s
}

// Compare orders two versions by semantic versioning's precedence: -1, 0 or 1. Build metadata
// does not count, and a pre-release comes before its release.
func (v Version) Compare(w Version) int {
	for _, d := range [][2]int{{v.Major, w.Major}, {v.Minor, w.Minor}, {v.Patch, w.Patch}} {
		if d[0] != d[1] {
			return sign(d[0] - d[1])
		}
	}
	switch {
	case len(v.Pre) == 0 && len(w.Pre) == 0:
		return 0
	case len(v.Pre) == 0:
		return 1
	case len(w.Pre) == 0:
		return -1
	}
	for i := 0; i < len(v.Pre) && i < len(w.Pre); i++ {
		if c := comparePre(v.Pre[i], w.Pre[i]); c != 0 {
			return c
		}
	}
	return sign(len(v.Pre) - len(w.Pre))
}

// comparePre orders two pre-release identifiers: numbers numerically and before words,
// words in ASCII order.
func comparePre(a, b string) int {
	na, errA := strconv.Atoi(a)
	nb, errB := strconv.Atoi(b)
	switch {
	case errA == nil && errB == nil:
		return sign(na - nb)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// Checkable says whether a build of this version looks for updates at all, and if not, why.
// Only a release build can tell whether another release is newer: a development build ("dev",
// from go build) or a snapshot made without a release tag ("0.0.0-dev+g1a2b3c4", from
// build/dist.sh) has no place among the releases, and would call every release an update.
func Checkable(current string) (Version, string) {
	v, ok := ParseVersion(current)
	switch {
	case !ok:
		return Version{}, "this is a development build (version " + strconvQuote(current) + "), which cannot tell whether a release is newer"
	case v.Major == 0 && v.Minor == 0 && v.Patch == 0:
		return Version{}, "this build was made without a release tag (version " + strconvQuote(current) + "), so it cannot tell whether a release is newer"
	}
	return v, ""
}

func strconvQuote(s string) string {
	if len(s) > MaxVersionLength {
		s = s[:MaxVersionLength] + "..."
	}
	return strconv.Quote(s)
}

// Offered reports whether latest is an update to offer a build of version current: a newer
// release, and not a pre-release unless current is one itself (someone on a release is not
// offered a release candidate).
func Offered(current, latest Version) bool {
	if len(latest.Pre) > 0 && len(current.Pre) == 0 {
		return false
	}
	return latest.Compare(current) > 0
}
