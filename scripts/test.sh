#!/usr/bin/env bash
# The project's test command: vet, then every Go test, including the ones
# that drive mongosh and pymongo against `lode serve`. It ends with the
# tests that were skipped (a missing client or tool, an acceptance size),
# by group, and how to run them: each skip is recorded in LODE_SKIP_DIR
# (test/testenv/skip.go).
set -euo pipefail
cd "$(dirname "$0")/.."
unformatted=$(gofmt -l $(git ls-files '*.go') 2>/dev/null || true)
if [ -n "$unformatted" ]; then
  echo "gofmt needed:"; echo "$unformatted"; exit 1
fi
# Test binaries are linked by Go's own linker: Pebble's cgo zstd (which Lode
# never uses: its tables are snappy-compressed) would otherwise make every
# one of the ~80 test binaries an external link through the C toolchain,
# twice the time. pebblegozstd swaps it for Pebble's pure-Go zstd.
# -pgo=off: cmd/lode/default.pgo (profile-guided optimization, see
# scripts/pgo-profile.sh) would otherwise compile every package a second
# time for the `lode` the client tests run and for cmd/lode's own tests,
# about two more minutes; the profile changes speed, never behaviour.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-tags=pebblegozstd -ldflags=-linkmode=internal -pgo=off"
go vet ./...
LODE_SKIP_DIR=$(mktemp -d)
export LODE_SKIP_DIR
trap 'rm -rf "$LODE_SKIP_DIR"' EXIT
rc=0
go test -count=1 -timeout 20m ./... "$@" || rc=$?
echo
go run ./test/testenv/skipsummary "$LODE_SKIP_DIR" || true
exit $rc
