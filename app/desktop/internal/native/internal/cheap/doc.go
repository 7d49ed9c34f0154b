// Package cheap leaves freed memory in the C heap for the tests of native.TrimCHeap. Only
// tests import it, so it is never linked into the app. It does something only on Linux,
// where glibc keeps such memory until it is trimmed.
package cheap
