package native

import (
	"runtime"
	"testing"

	"github.com/clanker-desktop/clanker/tests/cmalloc"
)

// Memory freed in the middle of the C heap stays with the process until it is trimmed:
// TrimCHeap must hand it back on Linux and report nothing elsewhere.
func TestTrimCHeapReturnsFreedMemory(t *testing.T) {
	release := cmalloc.FreedInTheMiddle(64 << 20)
	defer release()
	got := TrimCHeap()
	if runtime.GOOS == "linux" && !got {
		t.Fatal("malloc_trim returned nothing after 64 MiB were freed below a live block")
	}
	if runtime.GOOS != "linux" && got {
		t.Fatal("TrimCHeap reported a release on a system where it does nothing")
	}
}
