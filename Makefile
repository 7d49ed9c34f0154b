# Clanker: one command builds, one runs, one tests. See README.md.
SHELL      := /bin/bash
export PATH := $(PATH):/usr/local/go/bin
TOOLS      := $(CURDIR)/.tools/bin
# Wails on Linux links WebKitGTK 4.1; every Go command uses the same tags so vet, tests and
# builds see the same files.
TAGS       ?= webkit2_41
GOTEST     ?= go test -tags $(TAGS)
# Packages whose tests run under the race detector (everything).
PKGS       ?= ./...
# go test runs two packages at a time and starts them in the order given, so the longest go
# first: left to the pattern's order, the end-to-end suite (about 10 minutes) started near
# the end and ran alone while the other slot stood idle.
SLOW_PKGS  := ./tests/e2e ./tests/browser/bridgetest ./tests/chaos ./tests/browser/pagechaos \
  ./tests/browser/chaostest ./tests/browser/settingstest ./tests/browser/simtest
TEST_PKGS  := $(if $(filter ./...,$(PKGS)),$(SLOW_PKGS)) $(PKGS)
# The tags `wails build -platform windows/amd64 ... -webview2 download` (build/dist.sh) compiles
# the installer's clanker.exe with, so make check builds the same files.
WINDOWS_TAGS := desktop,production,$(TAGS),wv2runtime.download

.PHONY: all deps check fmt run demo test test-unit test-windows bench chaos pagechaos fuzz sim generate screenshots clean

all: test

## deps: install system packages and pinned Go tools (idempotent; fast when present)
deps:
	@bash build/install-deps.sh

## run: build and start Clanker on https://messages.google.com/web (ARGS="--data-dir DIR" etc.)
run: deps build/bin/clanker
	build/bin/clanker $(ARGS)

## demo: build and start Clanker on the built-in simulator with the demo model
demo: deps build/bin/clanker
	build/bin/clanker demo $(ARGS)

# The app and, beside it as a release ships it, the page process's web extension (Linux).
.PHONY: build/bin/clanker
build/bin/clanker:
	go build -tags $(TAGS),production -o $@ .
	@if [ "$$(go env GOOS)" = linux ]; then bash build/webext.sh build/bin/web-extensions; fi

## fmt: rewrite Go files with gofmt
fmt:
	gofmt -w $$(git ls-files '*.go')

## check: formatting, tidy go.mod/go.sum, vet (Linux, Windows, and macOS as far as it builds
## without cgo: build/vet-darwin.sh), staticcheck, the Windows build of the app, and known
## vulnerabilities (govulncheck on an offline database, see build/vulncheck.sh)
check:
	@bash build/install-deps.sh --check
	@out=$$(gofmt -l $$(git ls-files -co --exclude-standard '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	go mod tidy -diff
	go vet -tags $(TAGS) $(PKGS)
	go vet -tags $(TAGS),testcontrol ./app/run
	go vet -tags $(TAGS),smoke ./tests/smoke
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go vet -tags $(TAGS) $(PKGS)
	TAGS=$(TAGS) bash build/vet-darwin.sh
	$(TOOLS)/staticcheck -tags $(TAGS) $(PKGS)
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -tags $(WINDOWS_TAGS) -ldflags "-H windowsgui" -o /dev/null .
	TAGS=$(TAGS) bash build/vulncheck.sh

## test: everything CI runs (installs what it needs first)
test: deps check
	$(GOTEST) -race -timeout 20m $(TEST_PKGS)
	$(MAKE) --no-print-directory test-windows
	$(MAKE) --no-print-directory dist-test

## test-unit: quick loop without browser tests
test-unit:
	$(GOTEST) -race -short $(PKGS)

## test-windows: the Windows build's tests under Wine and the Windows installer's silent
## install and uninstall. WINE_PKGS are the packages whose tests run as Windows programs:
## the engine, the store, the model client, the page link, images, diagnostics, the
## desktop packages (menus, the native layer's decisions, the session's registry, lock
## and toast set-up, the tray icon), app/run, the fault corpus and the chaos replays
## with a few seeds (the 100-seed sweep runs natively in make test). Left out: the root
## package (it runs the go command), the browser and security suites (Chromium),
## tests/e2e and tests/dist (Linux only), tests/crash, the generators and tools. What
## Wine cannot show (WebView2, toasts) runs in .github/workflows/windows.yml.
WINE_DIR ?= $(CURDIR)/build/bin/wine
WINE_PKGS ?= ./app/engine ./app/sqlite ./app/llm ./app/page ./app/images ./app/diag \
  ./app/keychain ./app/desktop/menus ./app/desktop/internal/native ./app/desktop/internal/macos \
  ./app/desktop/internal/text ./app/desktop/session ./app/desktop/window ./app/run \
  ./tests/faults ./tests/testkit ./tests/wintest
WINE_GOTEST = CLANKER_WINE_DIR=$(WINE_DIR) GOOS=windows CGO_ENABLED=0 go test -tags $(TAGS),installer \
  -count=1 -timeout 10m -overlay $(WINE_DIR)/overlay.json -exec $(CURDIR)/build/windows/wine/run.sh
test-windows:
	@bash build/install-deps.sh --dist --windows
	@if [ -e "$(WINE_DIR)/prefix/drive_c/Program Files/Clanker" ]; then \
	  echo "test-windows: an interrupted run left Clanker installed; starting a fresh Wine prefix"; \
	  rm -rf "$(WINE_DIR)/prefix"; fi
	@CLANKER_WINE_DIR=$(WINE_DIR) bash build/windows/wine/run.sh --setup
	CLANKER_DIST_STAGE=$(WINE_DIR)/stage bash build/dist.sh -o $(WINE_DIR)/dist windows >/dev/null
	CLANKER_SETUP_EXE="$$(ls $(WINE_DIR)/dist/Clanker-*-windows-amd64-setup.exe)" \
	  $(WINE_GOTEST) $(WINE_PKGS)
	$(WINE_GOTEST) ./tests/chaos -args -seeds=10

## bench: run every benchmark COUNT times and write BENCHMARKS.md (medians, machine, command,
## and the sizes of the release artifacts, which it builds first); the soak (issue 32.2, over
## half an hour a run) runs SOAK_COUNT times in a pass of its own (0 leaves it out)
COUNT ?= 5
SOAK_COUNT ?= 1
bench: deps dist
	go run ./tests/tools/benchreport -count $(COUNT) -soak-count $(SOAK_COUNT) -tags $(TAGS) -dist $(DIST) -o BENCHMARKS.md

## chaos: the seeded chaos simulation over the real engine and store: seeds BASE+1..BASE+SEEDS
## (make test runs the fixed seeds 1..100; sweep elsewhere with e.g. BASE=5000000)
SEEDS ?= 1000
BASE  ?= 0
chaos:
	@echo "chaos: base $(BASE), $(SEEDS) seeds (BASE+1 .. BASE+SEEDS; the run prints the exact range)"
	@set -o pipefail; go test -tags $(TAGS) -count=1 -timeout 120m ./tests/chaos -run '^TestChaosSeedsKeepEveryInvariant$$' \
	  -seeds=$(SEEDS) -base=$(BASE) -v 2>&1 | grep -Ev '^ *(=== (RUN|PAUSE|CONT|NAME)|--- PASS)'

## pagechaos: the bridge's property test on the simulator's page-behaviour generator: seeds
## BASE+1..BASE+SEEDS, PAR at once (make test plays the fixed seeds and the scripted shapes);
## record sweeps in tests/browser/pagechaos/SWEEPS.md
PAR ?= 2
pagechaos:
	@echo "pagechaos: base $(BASE), $(SEEDS) seeds (BASE+1 .. BASE+SEEDS), $(PAR) at once, at $$(git rev-parse --short HEAD)"
	@set -o pipefail; go test -tags $(TAGS) -count=1 -timeout 1200m ./tests/browser/pagechaos -run '^TestPageBehaviours$$' \
	  -pagechaos.seeds=$(SEEDS) -pagechaos.base=$(BASE) -pagechaos.parallel=$(PAR) -parallel $(PAR) -v 2>&1 | grep -Ev '^ *(=== (RUN|PAUSE|CONT|NAME)|--- PASS)'

## fuzz: run every fuzz target (of PKGS) for FUZZTIME each (their seed corpora run in make test). A failing
## target does not stop the run: every failing one is listed at the end and the exit code is 1.
## Go saves each failing input under the package's testdata/fuzz/<target>/.
FUZZTIME ?= 5m
fuzz:
	@TAGS=$(TAGS) FUZZTIME=$(FUZZTIME) bash build/fuzz.sh $(PKGS)

## sim: serve the Google Messages simulator for a person to browse
sim:
	go run ./tests/tools/clanker-sim $(ARGS)

## screenshots: retake the README's screenshots (docs/screenshots) on the real app and the
## simulator under Xvfb, light and dark (a stand-in desktop portal switches the scheme);
## the same tests check what they show in every make test
screenshots: deps
	CLANKER_SCREENSHOTS=$(CURDIR)/docs/screenshots $(GOTEST) -count=1 -timeout 10m \
	  -run '^(TestGuideBannerAndPillHintInTheRealApp|TestDarkModeFollowsTheDesktop)$$' ./tests/e2e

## generate: rebuild generated files (the bundled bridge script)
generate:
	go generate ./inject/...

clean:
	rm -rf artifacts bin dist

include build/dist.mk
