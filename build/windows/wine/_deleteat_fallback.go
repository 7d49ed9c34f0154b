//go:build windows

// This file is not part of any package of Clanker: build/windows/wine/run.sh --overlay
// hands it to `go test -overlay` as an extra file of the standard library's
// internal/syscall/windows when the Windows tests are built to run under Wine.
//
// Wine 8 does not implement FileDispositionInformationEx (NtSetInformationFile class
// 64; it answers STATUS_NOT_IMPLEMENTED, "Invalid function"), which os.Remove and
// os.RemoveAll use on Windows 10 and later, so every t.TempDir clean-up would fail.
// Go keeps a fallback for older Windows and for file systems without it
// (FileDispositionInfo); this switch makes it take that path from the start.

package windows

func init() { TestDeleteatFallback = true }
