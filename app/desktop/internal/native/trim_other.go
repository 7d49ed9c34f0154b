//go:build !linux || android

package native

// TrimCHeap does nothing here: only glibc's malloc keeps freed pages this way (Windows'
// and macOS's allocators return them on their own).
func TrimCHeap() bool { return false }
