// Package dist holds Clanker's packaging tests: the version derived from git tags, the
// package manager manifests' generator (build/manifests) on stand-in files, and (with
// CLANKER_DIST_TEST=1, as `make dist-test` sets it) a full build of the Windows installer,
// the .deb, the .rpm, the Arch package, the .tar.gz and the manifests, whose contents are
// checked with each system's own tools and whose .deb is installed on this machine, run from
// /usr/bin and removed again.
//
// The installer build is opt-in because it takes tens of seconds even when warm and installs
// a system package; a plain `go test ./...` must stay fast and leave the machine alone.
package dist
