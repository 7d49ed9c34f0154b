// Package cmalloc leaves freed memory in the C heap for the test of native.TrimCHeap: the
// test needs cgo, and a _test.go file cannot use it, so the C lives in this test-only
// package, which the app never links. It does something only on Linux, where glibc keeps
// such memory until it is trimmed.
package cmalloc
