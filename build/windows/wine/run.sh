#!/usr/bin/env bash
# Runs a Windows program under Wine in the project's own throw-away prefix. It is the
# `go test -exec` program of `make test-windows`:
#
#   GOOS=windows go test -overlay build/bin/wine/overlay.json \
#     -exec build/windows/wine/run.sh ./app/desktop/session
#   build/windows/wine/run.sh --setup     only prepare the prefix (idempotent)
#
# The prefix lives in build/bin/wine (git-ignored; CLANKER_WINE_DIR moves it) and is made
# once, offline (no Mono or Gecko downloads). Wine 8 has no bcryptprimitives.dll, which Go
# programs need since Go 1.22; the stand-in is compiled from processprng.c with MinGW and
# copied into the prefix. Wine 8 also lacks FileDispositionInformationEx, with which
# Go's os.Remove deletes files on Windows 10 and later ("Invalid function"; every
# t.TempDir clean-up fails): --setup writes overlay.json beside the prefix, for
# `go test -overlay`, which switches on the fallback Go keeps for older Windows
# (_deleteat_fallback.go). CLANKER_SETUP_EXE, when set to a path on this machine, is
# handed to the program as Wine's name for it (drive Z:).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
state=${CLANKER_WINE_DIR:-$root/build/bin/wine}
die() { echo "wine: $*" >&2; exit 1; }

wine=${CLANKER_WINE:-}
if [ -z "$wine" ]; then
  for w in /usr/lib/wine/wine64 wine64 wine; do
    if command -v "$w" >/dev/null 2>&1; then wine=$(command -v "$w"); break; fi
  done
fi
[ -n "$wine" ] || die "no wine64: run 'bash build/install-deps.sh --windows' (Debian's wine64)"
wineserver=$(dirname "$wine")/wineserver
[ -x "$wineserver" ] || wineserver=$(command -v wineserver || true)

mkdir -p "$state/home"
export WINEPREFIX="$state/prefix" HOME="$state/home" WINEDEBUG=-all
# No Mono or Gecko installers (they would be downloaded), no display needed.
export WINEDLLOVERRIDES="mscoree=;mshtml=" DISPLAY=
unset WAYLAND_DISPLAY

setup() {
  local dll="$state/bcryptprimitives.dll"
  if [ ! -f "$dll" ] || [ "$here/processprng.c" -nt "$dll" ]; then
    command -v x86_64-w64-mingw32-gcc >/dev/null ||
      die "no MinGW compiler: run 'bash build/install-deps.sh --windows' (gcc-mingw-w64-x86-64-win32)"
    x86_64-w64-mingw32-gcc -shared -O2 -o "$dll.tmp" "$here/processprng.c" -ladvapi32
    mv "$dll.tmp" "$dll"
  fi
  if [ ! -f "$WINEPREFIX/system.reg" ]; then
    echo "wine: creating the prefix in $WINEPREFIX (once)" >&2
    "$wine" wineboot -i >/dev/null 2>&1 || true
    [ -n "$wineserver" ] && "$wineserver" -w || true
    [ -f "$WINEPREFIX/system.reg" ] || die "wineboot did not create $WINEPREFIX"
  fi
  # A new prefix says it is Windows 7 (Debian's 64-bit-only Wine); the installer, like
  # the app, requires Windows 10 and refuses to run silently anywhere older.
  if [ ! -f "$WINEPREFIX/.clanker-win10" ]; then
    "$wine" winecfg -v win10 >/dev/null 2>&1 || die "could not set the prefix's Windows version"
    [ -n "$wineserver" ] && "$wineserver" -w || true
    touch "$WINEPREFIX/.clanker-win10"
  fi
  local sys32="$WINEPREFIX/drive_c/windows/system32"
  if ! cmp -s "$dll" "$sys32/bcryptprimitives.dll"; then
    cp "$dll" "$sys32/bcryptprimitives.dll"
  fi
  if command -v go >/dev/null 2>&1; then
    local goroot overlay
    goroot=$(go env GOROOT)
    overlay=$(printf '{"Replace":{"%s/src/internal/syscall/windows/zz_clanker_wine_deleteat.go":"%s/_deleteat_fallback.go"}}' "$goroot" "$here")
    if [ "$(cat "$state/overlay.json" 2>/dev/null)" != "$overlay" ]; then
      printf '%s' "$overlay" >"$state/overlay.json"
    fi
  fi
}

# One setup at a time: go test starts a program per package in parallel.
exec 9>"$state/.lock"
flock 9
setup
flock -u 9

if [ "${1:-}" = "--setup" ]; then exit 0; fi
[ $# -gt 0 ] || die "usage: run.sh PROGRAM [ARGS...] | run.sh --setup"

if [ -n "${CLANKER_SETUP_EXE:-}" ] && [ "${CLANKER_SETUP_EXE#/}" != "$CLANKER_SETUP_EXE" ]; then
  export CLANKER_SETUP_EXE="Z:${CLANKER_SETUP_EXE//\//\\}"
fi
exec "$wine" "$@"
