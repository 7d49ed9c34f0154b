#!/usr/bin/env bash
# Vets the macOS build as far as a Linux machine can: GOOS=darwin with cgo off. Packages
# whose build needs cgo on macOS (Wails' macOS frontend and fyne.io/systray are
# Objective-C; so is app/desktop/internal/native there) cannot be type-checked without a
# Mac's SDK, so they are left out and named; the macOS workflow vets everything on a Mac.
set -euo pipefail
tags=${TAGS:-webkit2_41}
export GOOS=darwin GOARCH=arm64 CGO_ENABLED=0
# Each package (and what its tests add, which go list reports under the package's name
# in ForTest) with everything it depends on; a package needs cgo when anything it or its
# tests import does.
cgo='fyne.io/systray|github.com/wailsapp/wails/v2/internal/frontend/desktop/darwin'
list=$(go list -tags "$tags" -test -f '{{or .ForTest .ImportPath}} {{join .Deps " "}}' ./... |
  awk -v cgo="^($cgo)\$" '$1 ~ /\.test$/ { next }
    { if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
      for (i = 2; i <= NF; i++) if ($i ~ cgo) bad[$1] = 1 }
    END { for (i = 1; i <= n; i++) print (order[i] in bad ? "skip" : "vet"), order[i] }')
vet=() skipped=()
while read -r what p; do
  if [ "$what" = vet ]; then vet+=("$p"); else skipped+=("${p#github.com/clanker-desktop/clanker/}"); fi
done <<<"$list"
echo "vet-darwin: ${#vet[@]} packages; left to the macOS workflow (need cgo): ${skipped[*]}"
go vet -tags "$tags" "${vet[@]}"
