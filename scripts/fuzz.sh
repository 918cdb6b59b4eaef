#!/usr/bin/env bash
# Runs every Go fuzz target for a short, bounded time (FUZZTIME, default
# 5s each). .ci/run calls it after the tests. Seed corpora live in each
# package's testdata/fuzz/<Target>/; a failing input is written there too,
# and `go test` then replays it as a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${FUZZTIME:-5s}
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r f; do
  pkg=./$(dirname "${f#./}")
  for target in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do
    echo "fuzz $pkg $target ($t)"
    log=$(mktemp)
    go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$t" >"$log" 2>&1 || { cat "$log"; rm -f "$log"; exit 1; }
    rm -f "$log"
  done
done
