#!/usr/bin/env bash
# Builds Clanker's release artifacts into one folder with a SHA256SUMS file.
#
#   build/dist.sh [-o DIR] [TARGET...]   build TARGETs (default: windows linux) into DIR (default dist)
#   build/dist.sh version [REPO]         print the version derived from git, and nothing else
#   build/dist.sh arch-version VERSION   print VERSION as the Arch package carries it
#   build/dist.sh manifests [DIR]        (re)write DIR/manifests from the artifacts in DIR (default
#                                        dist), e.g. once the macOS job's .dmg joined the others
#
# Targets:
#   windows  clanker-V-windows-amd64.exe and Clanker-V-windows-amd64-setup.exe (NSIS, cross-built)
#   linux    clanker_V_amd64.deb, clanker-V-1.x86_64.rpm and clanker-A-1-x86_64.pkg.tar.zst
#            (nfpm; A is V in pacman's order, see arch_version), and clanker-V-linux-amd64.tar.gz
#   darwin   Clanker-V-macos-universal.dmg and Clanker-V-macos-universal.app.zip (macOS only:
#            .github/workflows/macos.yml runs it on a macOS runner)
#
# After the targets, DIR/manifests gets the package manager manifests for what was built
# (build/manifests): winget's three files for the Windows installer, a Scoop manifest for the
# bare .exe and a Homebrew cask for the .dmg, each with the artifact's SHA-256. SHA256SUMS
# lists the artifacts in DIR itself.
#
# Why a staged copy: `wails build` writes into the project while it works (a Windows .syso
# resource file in the main package, wails_tools.nsh, the WebView2 bootstrapper, build/bin)
# and the version has to be written into wails.json and the NSIS script. Doing that in a copy
# keeps the working tree clean and keeps a concurrent `go test ./...` from linking a Windows
# resource object into a Linux test binary. The copy lives in build/bin/stage (git-ignored;
# it has its own go.mod, so `./...` patterns in the repository skip it) unless
# CLANKER_DIST_STAGE names another folder.
#
# Written for bash 3.2 as well, because macOS runners still ship it.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)

die() { echo "dist: $*" >&2; exit 1; }
log() { echo "dist: $*" >&2; }

# version_from_git prints one version for everything built from REPO's current checkout:
#   exactly on tag v1.2.3            -> 1.2.3
#   3 commits after v1.2.3           -> 1.2.3+3.g1a2b3c4   (sorts after 1.2.3 for dpkg)
#   uncommitted changes              -> ...with .dirty (or +dirty) appended
#   no v* tag (e.g. a shallow CI clone) -> 0.0.0-dev+g1a2b3c4
#   not a git checkout at all        -> 0.0.0-dev
# CLANKER_VERSION, when set, wins (release jobs), but must look like a version.
version_from_git() {
  local repo=$1 desc base n hash dirty=""
  if [ -n "${CLANKER_VERSION:-}" ]; then
    check_version "$CLANKER_VERSION"
    echo "$CLANKER_VERSION"
    return
  fi
  if ! desc=$(git -C "$repo" describe --tags --always --dirty --abbrev=7 --match 'v[0-9]*' 2>/dev/null); then
    echo "0.0.0-dev"
    return
  fi
  case $desc in
    *-dirty) dirty=dirty; desc=${desc%-dirty} ;;
  esac
  if [[ $desc =~ ^v([0-9]+(\.[0-9]+)*([-.][0-9A-Za-z.]+)?)-([0-9]+)-g([0-9a-f]+)$ ]]; then
    base=${BASH_REMATCH[1]} n=${BASH_REMATCH[4]} hash=${BASH_REMATCH[5]}
    echo "$base+$n.g$hash${dirty:+.$dirty}"
  elif [[ $desc =~ ^v([0-9]+(\.[0-9]+)*([-.][0-9A-Za-z.]+)?)$ ]]; then
    base=${BASH_REMATCH[1]}
    echo "$base${dirty:++$dirty}"
  elif [[ $desc =~ ^[0-9a-f]+$ ]]; then
    echo "0.0.0-dev+g$desc${dirty:+.$dirty}"
  else
    # A tag like "vNext" that matched v[0-9]* loosely; keep the build going with a dev version.
    echo "0.0.0-dev${dirty:++$dirty}"
  fi
}

# check_version rejects anything that could break out of the quoting in ldflags, NSIS
# defines or nfpm's YAML: a version is digits, dots, and then a restricted suffix.
check_version() {
  [[ $1 =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]] ||
    die "version \"$1\" is not of the form 1.2.3 or 1.2.3-suffix / 1.2.3+suffix"
}

# numeric_version prints the leading X.Y.Z of a version, padded with zeros, for the places
# that only take numbers (Windows version resources, macOS CFBundleVersion).
numeric_version() {
  local v=$1 a b c
  [[ $v =~ ^([0-9]+)(\.([0-9]+))?(\.([0-9]+))? ]] || { echo 0.0.0; return; }
  a=${BASH_REMATCH[1]} b=${BASH_REMATCH[3]:-0} c=${BASH_REMATCH[5]:-0}
  echo "$((10#$a)).$((10#$b)).$((10#$c))"
}

# The licence the packages and manifests declare: the Linux packages' recipe holds it (see
# the comment there), the manifests repeat it.
license=$(sed -n 's/^license: *//p' "$root/build/linux/nfpm.yaml")
[ -n "$license" ] || die "build/linux/nfpm.yaml names no licence"

# arch_version VERSION prints the version as the Arch package carries it. pacman orders
# versions like rpm, without a pre-release marker: letters right after the version make it
# older ("1.2.3rc.1" before "1.2.3"), a dot and more make it newer ("1.2.3.r3.g1a2b3c4"
# after "1.2.3"), and it allows no "-". nfpm's own conversion drops the build metadata, which
# would give a build made after a tag the tag's version.
arch_version() {
  local v=$1 base rest pre meta="" out
  base=${v%%[-+]*}
  rest=${v#"$base"}
  case $rest in *+*) meta=${rest#*+} ;; esac
  pre=${rest%%+*}
  pre=${pre#-}
  out=$base${pre//-/_}
  if [ -n "$meta" ]; then
    case $meta in
      [0-9]*) out="$out.r${meta//-/_}" ;;
      *) out="$out.${meta//-/_}" ;;
    esac
  fi
  echo "$out"
}

# write_manifests DIR VERSION: the package manager manifests for the artifacts in DIR.
write_manifests() {
  (cd "$root" && go run ./build/manifests -dir "$1" -version "$2" -license "$license") ||
    die "writing the package manager manifests failed"
}

if [ "${1:-}" = "version" ]; then
  version_from_git "${2:-$root}"
  exit 0
fi
if [ "${1:-}" = "arch-version" ]; then
  arch_version "$2"
  exit 0
fi
if [ "${1:-}" = "manifests" ]; then
  dir=${2:-$root/dist}
  case $dir in /*) ;; *) dir="$PWD/$dir" ;; esac
  version=$(version_from_git "$root")
  check_version "$version"
  write_manifests "$dir" "$version"
  exit 0
fi

out="$root/dist"
targets=""
while [ $# -gt 0 ]; do
  case $1 in
    -o) [ $# -ge 2 ] || die "-o needs a directory"; out=$2; shift 2 ;;
    windows|linux|darwin) targets="$targets $1"; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) die "unknown argument \"$1\" (try --help)" ;;
  esac
done
[ -n "$targets" ] || targets=" windows linux"
case $out in /*) ;; *) out="$PWD/$out" ;; esac

case "$targets " in
  *" darwin "*) [ "$(uname -s)" = Darwin ] || die "the macOS app can only be built on macOS (cgo + Cocoa); see .github/workflows/macos.yml" ;;
esac

version=$(version_from_git "$root")
check_version "$version"
numeric=$(numeric_version "$version")
log "version $version (numeric $numeric); targets:$targets; output $out"

tools="$root/.tools/bin"
find_tool() { # name: prefer the pinned copy in .tools/bin, then PATH
  if [ -x "$tools/$1" ]; then echo "$tools/$1"; return; fi
  command -v "$1" 2>/dev/null || die "$1 not found: run 'bash build/install-deps.sh --dist' (installs the pinned wails and nfpm into .tools/bin)"
}
wails=$(find_tool wails)

# Stage the repository: tracked and untracked-but-not-ignored files, as they are on disk.
# CLANKER_DIST_STAGE moves it elsewhere (the packaging test uses a temporary folder, so it can
# run beside a `make dist`).
stage="${CLANKER_DIST_STAGE:-$root/build/bin/stage}"
case $stage in /*) ;; *) stage="$PWD/$stage" ;; esac
case $stage in /|"$root"|"$root/"|"${HOME:-/}"|"$out") die "refusing to use $stage as the staging folder (it is emptied first)" ;; esac
[ "$out" != "$root" ] || die "refusing to write artifacts into the repository root; use -o dist"
rm -rf "$stage"
mkdir -p "$stage"
list="$stage.files"
(cd "$root" && git ls-files -co --exclude-standard 2>/dev/null || true) |
  while IFS= read -r f; do
    if [ -f "$root/$f" ] && [ "${f#build/bin/}" = "$f" ]; then echo "$f"; fi
  done >"$list"
[ -s "$list" ] || die "no files to stage (is $root a git checkout?)"
(cd "$root" && tar -cf - -T "$list") | (cd "$stage" && tar -xf -)
rm -f "$list"

# Stamp the version into the staged project: wails.json feeds the Windows version resource,
# the exe manifest and macOS's Info.plist (all numeric-only); the NSIS script and the exe's
# ProductVersion string get the full version.
sed -E -i.orig "s/(\"productVersion\"[[:space:]]*:[[:space:]]*\")[^\"]*\"/\1$numeric\"/" "$stage/wails.json"
sed -E -i.orig "s/(\"ProductVersion\"[[:space:]]*:[[:space:]]*\")[^\"]*\"/\1$version\"/" "$stage/build/windows/info.json"
rm -f "$stage/wails.json.orig" "$stage/build/windows/info.json.orig"
grep -q "\"productVersion\": *\"$numeric\"" "$stage/wails.json" || die "could not stamp the version into wails.json"
printf '!define CLANKER_VERSION "%s"\n!define CLANKER_VERSION_NUMERIC "%s"\n' "$version" "$numeric" \
  >"$stage/build/windows/installer/version.nsh"

mkdir -p "$out"
# Remove earlier artifacts so SHA256SUMS never lists files from another version.
rm -f "$out"/clanker* "$out"/Clanker* "$out"/SHA256SUMS
rm -rf "$out"/manifests

# recompress_deb rewrites the .deb's data.tar.xz at xz's strongest preset with its x86
# filter. nfpm's xz writer has no level (an 8 MiB dictionary); the binary is ~40 MB, so the
# larger dictionary and extreme match search make the download about a fifth smaller. `ar r`
# replaces the member in place, so the members keep dpkg's order; D writes zero timestamps
# and ids, as nfpm does.
recompress_deb() {
  local deb=$1 dir
  [ -f "$deb" ] || die "no .deb to recompress: $deb"
  command -v xz >/dev/null || die "xz not found: install the xz-utils package"
  command -v ar >/dev/null || die "ar not found: install the binutils package"
  dir=$(mktemp -d)
  (cd "$dir" && ar x "$deb" data.tar.xz && xz -dc data.tar.xz >data.tar &&
    xz --x86 --lzma2=preset=9e --threads=1 -c data.tar >data.tar.xz.new &&
    mv data.tar.xz.new data.tar.xz && ar rD "$deb" data.tar.xz) || { rm -rf "$dir"; die "recompressing $deb failed"; }
  rm -rf "$dir"
  [ "$(ar t "$deb" | tr '\n' ' ')" = "debian-binary control.tar.gz data.tar.xz " ] || die "$deb lost dpkg's member order"
}

# recompress_arch rewrites the Arch package's zstd stream at level 19. nfpm writes it at
# zstd's default level (11.0 MB for this package); 19 makes it about 8.7 MB, within issue 17's
# 10 MB for what people download. Only the outer compression changes: the tar inside, with
# its .PKGINFO and .MTREE, stays byte for byte, and level 19 keeps zstd's default 8 MiB
# window, which every zstd reader (pacman's libarchive included) accepts.
recompress_arch() {
  local pkg=$1
  [ -f "$pkg" ] || die "no Arch package to recompress: $pkg"
  command -v zstd >/dev/null || die "zstd not found: install the zstd package"
  zstd -dc "$pkg" | zstd -19 -T1 -q -o "$pkg.new" || { rm -f "$pkg.new"; die "recompressing $pkg failed"; }
  mv "$pkg.new" "$pkg"
}

# Every build: no `go mod tidy` (other people edit go.mod; the release takes it as committed),
# no bindings generation (it would run the app), no frontend build (the pages are embedded Go
# assets), paths trimmed for reproducible binaries.
wails_build() {
  (cd "$stage" && GOFLAGS=-mod=mod "$wails" build -m -nosyncgomod -skipbindings -s -skipembedcreate \
    -trimpath -ldflags "-X main.version=$version" "$@")
}

for target in $targets; do
  case $target in
  windows)
    command -v makensis >/dev/null || die "makensis not found: install the nsis package"
    log "windows: wails build (NSIS installer with the WebView2 bootstrapper)"
    wails_build -platform windows/amd64 -tags webkit2_41 -nsis -webview2 download
    [ -f "$stage/build/bin/clanker-amd64-installer.exe" ] || die "wails did not produce the NSIS installer (is makensis installed?)"
    cp "$stage/build/bin/clanker.exe" "$out/clanker-$version-windows-amd64.exe"
    cp "$stage/build/bin/clanker-amd64-installer.exe" "$out/Clanker-$version-windows-amd64-setup.exe"
    ;;
  linux)
    nfpm=$(find_tool nfpm)
    log "linux: wails build"
    wails_build -platform linux/amd64 -tags webkit2_41
    bin="$stage/build/bin/clanker"
    [ -x "$bin" ] || die "wails did not produce $bin"
    log "linux: the page process's web extension"
    (cd "$stage" && bash build/webext.sh build/bin/web-extensions) >&2 || die "build/webext.sh failed"
    for packager in deb rpm; do
      log "linux: nfpm $packager"
      (cd "$stage" && CLANKER_VERSION=$version \
        "$nfpm" package --config build/linux/nfpm.yaml --packager "$packager" --target "$out/") >&2
    done
    log "linux: nfpm archlinux (version $(arch_version "$version"))"
    sed 's/^version_schema: semver$/version_schema: none/' "$stage/build/linux/nfpm.yaml" >"$stage/build/bin/nfpm-arch.yaml"
    grep -q '^version_schema: none$' "$stage/build/bin/nfpm-arch.yaml" || die "could not switch the Arch recipe's version schema"
    (cd "$stage" && CLANKER_VERSION=$(arch_version "$version") \
      "$nfpm" package --config build/bin/nfpm-arch.yaml --packager archlinux --target "$out/") >&2
    recompress_arch "$out"/clanker-*-x86_64.pkg.tar.zst
    recompress_deb "$out"/clanker_*_amd64.deb
    log "linux: .tar.gz"
    name="clanker-$version-linux-amd64"
    tree="$stage/build/bin/$name"
    rm -rf "$tree"
    mkdir -p "$tree/icons"
    cp "$bin" "$tree/clanker"
    cp -R "$stage/build/bin/web-extensions" "$tree/web-extensions"
    cp "$stage/build/linux/clanker.desktop" "$tree/clanker.desktop"
    cp "$stage/build/linux/README.tarball.txt" "$tree/README"
    cp -R "$stage/build/linux/hicolor" "$tree/icons/hicolor"
    chmod 0755 "$tree/clanker"
    (cd "$stage/build/bin" && tar --sort=name --owner=0 --group=0 -czf "$out/$name.tar.gz" "$name")
    ;;
  darwin)
    log "darwin: wails build (universal)"
    wails_build -platform darwin/universal
    # Wails names the bundle after the project ("clanker.app"); the Finder shows the bundle
    # name, so rename it. Two steps, because macOS file systems usually ignore case.
    app="$stage/build/bin/Clanker.app"
    mv "$stage/build/bin/clanker.app" "$stage/build/bin/Clanker.app.tmp"
    mv "$stage/build/bin/Clanker.app.tmp" "$app"
    # Clanker's own icon set (build/icons/gen) instead of Wails' conversion of appicon.png.
    cp "$stage/build/darwin/icon.icns" "$app/Contents/Resources/iconfile.icns"
    # Ad-hoc signature: Apple Silicon refuses to run unsigned code. This is not a Developer ID
    # signature, so Gatekeeper still asks on first start (see INSTALL.md).
    codesign --force --deep --sign - "$app"
    name="Clanker-$version-macos-universal"
    (cd "$stage/build/bin" && ditto -c -k --keepParent Clanker.app "$out/$name.app.zip")
    dmgroot="$stage/build/bin/dmg"
    rm -rf "$dmgroot"
    mkdir -p "$dmgroot"
    cp -R "$app" "$dmgroot/"
    ln -s /Applications "$dmgroot/Applications"
    hdiutil create -volname "Clanker" -srcfolder "$dmgroot" -ov -format UDZO "$out/$name.dmg" >&2
    ;;
  esac
done

write_manifests "$out" "$version"

(
  cd "$out"
  files=$(find . -maxdepth 1 -type f ! -name SHA256SUMS | sed 's|^\./||' | sort)
  [ -n "$files" ] || die "nothing was built"
  if command -v sha256sum >/dev/null; then sha256sum $files; else shasum -a 256 $files; fi >SHA256SUMS
)
log "done:"
(cd "$out" && ls -l) >&2
