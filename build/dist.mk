# Release packaging, included from the Makefile. The recipe itself is build/dist.sh (one
# script for Linux and the macOS CI job); the packaging test is tests/dist.

.PHONY: dist dist-test

## dist: Windows installer + .exe, Linux .deb, .rpm, Arch package + .tar.gz, SHA256SUMS and the
## winget/Scoop/Homebrew manifests (manifests/) into dist/ (DIST=dir to change)
DIST ?= dist
dist:
	@bash build/install-deps.sh --dist
	bash build/dist.sh -o $(DIST)

## dist-test: build every artifact, check their contents (the .rpm with rpm, the Arch package with
## pacman, the manifests against their schemas' rules), install the .deb, run `clanker --version`
## from /usr/bin and remove it again (needs root or sudo)
dist-test:
	@bash build/install-deps.sh --dist
	CLANKER_DIST_TEST=1 go test -count=1 -timeout 15m -v ./tests/dist/
