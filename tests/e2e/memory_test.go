//go:build linux

package e2e

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clanker-desktop/clanker/app/demo/sim"
	"github.com/clanker-desktop/clanker/tests/testkit"
)

// A photo shown in a conversation is decoded by the page's process at full size (the
// simulator's 12 MP photo: 48 MB of pixels). Once the user has left that conversation the
// picture is nowhere on screen and its pixels are not kept: the soak (issue 32.2) found
// them held for good under WebKit's default cache model, a web browser's, which prunes
// resources no page shows only past half of a 128 MB cache.
func TestFullAppPictureLeftBehindIsNotKeptDecoded(t *testing.T) {
	needDisplay(t)
	f := newFullApp(t)
	f.t = t
	f.configure()
	f.launch()
	family, bob := f.conversation(sim.DemoFamily), f.conversation(sim.DemoBob)
	web := func() int {
		pids := Descendants(f.app.Cmd.Process.Pid, "WebKitWebProces")
		if len(pids) != 1 {
			t.Fatalf("want the main window's one web process, found %v", pids)
		}
		return pids[0]
	}
	decoded := int64(sim.PhotoWidth * sim.PhotoHeight * 4 / 1024) // KiB of RGBA pixels

	// The premise: with the family's conversation open, the photo (its last message) is on
	// screen and decoded at full size. If WebKit ever decodes it smaller, this says so
	// instead of the test passing for the wrong reason.
	f.open(family)
	testkit.WaitFor(t, 60*time.Second, "the family's photo to be decoded in the page's process", func() (bool, string) {
		big := largeAnonMappings(web(), decoded)
		return len(big) > 0, fmt.Sprintf("anonymous mappings of at least %d KiB resident: %v", decoded, big)
	})

	f.open(bob)
	f.waitQuiet()
	testkit.WaitFor(t, 60*time.Second, "the photo's pixels to be let go once its conversation was left", func() (bool, string) {
		big := largeAnonMappings(web(), decoded)
		return len(big) == 0, fmt.Sprintf("anonymous mappings of at least %d KiB still resident: %v", decoded, big)
	})
	f.noUntrustedInput()
}

// largeAnonMappings lists the resident KiB of pid's anonymous mappings with at least min
// KiB resident: where a process's big allocations (a decoded picture) live.
func largeAnonMappings(pid int, min int64) []int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return nil
	}
	var out []int64
	anon := false
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			anon = len(f) == 5 // start-end perms offset dev inode, and no file
			continue
		}
		if anon && len(f) >= 2 && f[0] == "Rss:" {
			if kib, err := strconv.ParseInt(f[1], 10, 64); err == nil && kib >= min {
				out = append(out, kib)
			}
		}
	}
	return out
}
