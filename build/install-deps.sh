#!/usr/bin/env bash
# Installs what building and testing Clanker needs on a Debian/Ubuntu machine, idempotently:
# Debian packages (only the missing ones, with sudo when not root) and pinned Go tools into
# .tools/bin. Safe to run on every `make test`: when everything is present it takes well under
# a second and touches the network not at all.
#
#   build/install-deps.sh             what building, running and the Linux tests need
#   build/install-deps.sh --check     also govulncheck and its offline database (make check)
#   build/install-deps.sh --dist      also the pinned Wails CLI and nfpm (release packaging) and
#                                     the rpm and pacman tools make dist-test reads packages with
#   build/install-deps.sh --windows   also Wine and MinGW (make test-windows)
set -euo pipefail

check=false
dist=false
windows=false
for arg in "$@"; do
  case $arg in
    --check) check=true ;;
    --dist) dist=true ;;
    --windows) windows=true ;;
    *) echo "install-deps: unknown argument $arg" >&2; exit 2 ;;
  esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/.tools/bin"

# Debian packages, and why each is here.
packages=(
  gcc pkg-config                      # cgo (Wails, native input)
  libgtk-3-dev libwebkit2gtk-4.1-dev  # Wails v2 on Linux (build tag webkit2_41)
  chromium                            # bridge and simulator tests (headless)
  xvfb xauth                          # full-app tests under xvfb-run
  dbus dbus-x11                       # private session bus for tray and notification tests
  gnome-keyring                       # a real Secret Service for the API-key keychain test
  xdotool imagemagick                 # full-app tests: find windows, take screenshots
  fonts-dejavu-core                   # readable screenshots
  hunspell-en-us                      # a spell-checking dictionary WebKit finds (the spell-checking test reads it back)
  nsis p7zip-full                     # Windows installer cross-build and its content check
  xz-utils binutils                   # the .deb's data recompressed at xz -9e (ar swaps the member)
  ca-certificates git make
)
if $dist; then
  packages+=(
    rpm                             # make dist-test reads the .rpm's header and checks its digests (rpm -qp, rpmkeys -K)
    pacman-package-manager zstd     # ... and the Arch package's (pacman -Qp); make dist recompresses it with zstd -19
  )
fi
if $windows; then
  packages+=(
    wine64                          # runs the Windows build's tests and its installer (make test-windows)
    gcc-mingw-w64-x86-64-win32      # builds Wine's missing bcryptprimitives.dll stand-in for Go programs
  )
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

if ((${#missing[@]})); then
  if [ -n "$sudo" ] && ! command -v sudo >/dev/null; then
    echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1
  fi
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Go itself: Debian's golang-go is older than go.mod asks for, but any Go >= 1.21 fetches the
# right toolchain from the module proxy by itself (GOTOOLCHAIN=auto).
if ! command -v go >/dev/null; then
  if [ -x /usr/local/go/bin/go ]; then
    echo "install-deps: Go is at /usr/local/go/bin; add it to PATH" >&2
  else
    $sudo apt-get install -y -qq --no-install-recommends golang-go >/dev/null
  fi
fi

# Pinned Go tools, installed into the repository's .tools/bin (git-ignored).
install_tool() { # name module@version
  local name=$1 mod=$2 stamp="$tools/.$1.version"
  if [ -x "$tools/$name" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$mod" ]; then return; fi
  echo "install-deps: go install $mod"
  GOBIN="$tools" GOFLAGS=-mod=mod go install "$mod"
  echo "$mod" > "$stamp"
}
mkdir -p "$tools"
install_tool staticcheck honnef.co/go/tools/cmd/staticcheck@v0.8.2
if $check; then
  # make check's vulnerability scan (build/vulncheck.sh). indexdb comes from the module that
  # carries the vulnerability data; its version is the data's version, so moving this pin is
  # how the offline database gets newer reports.
  install_tool govulncheck golang.org/x/vuln/cmd/govulncheck@v1.9.0
  install_tool indexdb golang.org/x/vulndb/cmd/indexdb@v0.0.0-20261105234957-e22db6528018
fi
if $dist; then
  install_tool wails github.com/wailsapp/wails/v2/cmd/wails@v2.13.0
  install_tool nfpm github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.44.0
fi
