#!/usr/bin/env bash
# Checks the module for known vulnerabilities with govulncheck, offline.
#
# govulncheck normally reads the Go vulnerability database over HTTPS from its own site,
# which CI cannot reach; CI reaches only package registries. The database's source is the
# module golang.org/x/vulndb, which the Go module proxy serves: its data/osv folder holds
# every report in OSV JSON. The same module's cmd/indexdb turns that folder into the
# database layout govulncheck reads with -db file:///DIR. install-deps.sh pins indexdb to one
# vulndb version; this script builds the database from exactly that version once, keeps it
# in .tools/vulndb/VERSION, and scans against it. The data is as new as that pin: moving the
# pin in install-deps.sh to a newer vulndb version is how the database gets updated.
#
# The verdict comes from build/vulncheck (go run): it fails on any vulnerability the code
# calls, except those listed with a reason in build/vulncheck.accept.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/.tools/bin"
tags=${TAGS:-webkit2_41}

for tool in govulncheck indexdb; do
  [ -x "$tools/$tool" ] || { echo "vulncheck: $tools/$tool missing: run bash build/install-deps.sh --check" >&2; exit 2; }
done
pin=$(cat "$tools/.indexdb.version")   # golang.org/x/vulndb/cmd/indexdb@VERSION
version=${pin##*@}
cache="$root/.tools/vulndb"
db="$cache/$version"

if [ ! -f "$db/index/db.json" ]; then
  echo "vulncheck: building the vulnerability database from golang.org/x/vulndb@$version"
  # Run outside the module so the download is not recorded in go.mod or go.sum.
  (cd "${TMPDIR:-/tmp}" && go mod download "golang.org/x/vulndb@$version")
  src="$(go env GOMODCACHE)/golang.org/x/vulndb@$version"
  [ -d "$src/data/osv" ] || { echo "vulncheck: golang.org/x/vulndb@$version has no data/osv folder" >&2; exit 2; }
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/.build.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  "$tools/indexdb" -vulns "$src/data/osv" -out "$tmp/db"
  # Only one version is kept; the rename makes a half-built database impossible to use.
  find "$cache" -mindepth 1 -maxdepth 1 ! -name "$(basename "$tmp")" -exec rm -rf {} +
  mv "$tmp/db" "$db"
fi

cd "$root"
"$tools/govulncheck" -db "file://$db" -tags "$tags" -format json ./... |
  go run ./build/vulncheck -accept build/vulncheck.accept
