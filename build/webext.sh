#!/usr/bin/env bash
# Builds Clanker's WebKitGTK web-process extension (Linux only):
#   build/webext.sh OUT_DIR   ->  OUT_DIR/libclanker-webext.so
# The app looks for it in web-extensions/ beside its binary, then in
# ../lib/clanker/web-extensions/ (the .deb's layout); without it the app runs as before,
# only its idle memory release skips the page's process.
set -euo pipefail
out=${1:?usage: build/webext.sh OUT_DIR}
src=$(cd "$(dirname "$0")/.." && pwd)/app/desktop/internal/native/webext/clanker-webext.c
mkdir -p "$out"
# shellcheck disable=SC2046 # pkg-config prints several words on purpose
${CC:-cc} -shared -fPIC -O2 -Wall -Werror -o "$out/libclanker-webext.so" "$src" \
	$(pkg-config --cflags --libs webkit2gtk-web-extension-4.1)
