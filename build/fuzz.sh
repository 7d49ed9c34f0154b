#!/usr/bin/env bash
# Runs every fuzz target of the given packages (default ./...) for FUZZTIME each, with build
# tags TAGS. A failing target does not stop the run: the remaining targets still run, every
# failing one (and any package whose targets could not be listed) is named at the end, and the
# exit code is 1. Go saves each failing input under the package's testdata/fuzz/<target>/.
set -u
go=${GO:-go}
tags=${TAGS:-webkit2_41}
fuzztime=${FUZZTIME:-5m}
[ $# -gt 0 ] || set -- ./...

if ! pkgs=$("$go" list -tags "$tags" "$@"); then
  echo "fuzz: could not list the packages $*" >&2
  exit 1
fi
failed=()
n=0
for pkg in $pkgs; do
  if ! list=$("$go" test -tags "$tags" -list '^Fuzz' "$pkg" 2>&1); then
    echo "$list"
    failed+=("$pkg (could not list its targets)")
    continue
  fi
  for f in $(echo "$list" | grep '^Fuzz'); do
    n=$((n + 1))
    echo "== $pkg $f"
    "$go" test -tags "$tags" -run '^$' -fuzz "^$f\$" -fuzztime "$fuzztime" "$pkg" || failed+=("$pkg.$f")
  done
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: $n targets ran for $fuzztime each; these failed:"
  for f in "${failed[@]}"; do echo "  $f"; done
  exit 1
fi
echo "fuzz: all $n targets passed for $fuzztime each"
