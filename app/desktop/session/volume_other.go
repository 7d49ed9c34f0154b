//go:build !darwin

package session

// readOnlyVolume is only asked about macOS's login items; elsewhere no path is refused
// for its volume.
func readOnlyVolume(string) bool { return false }
