// Package tooling tests the repository's own developer scripts under build/ that are not part
// of a release: today the fuzz runner behind make fuzz, which must run every target even after
// one of them fails and name every failure at the end.
package tooling
