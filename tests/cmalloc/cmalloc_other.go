//go:build !linux || android

package cmalloc

// FreedInTheMiddle does nothing on systems whose allocator returns freed memory itself.
func FreedInTheMiddle(int) (release func()) { return func() {} }
