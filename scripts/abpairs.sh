#!/usr/bin/env bash
# Old and new, alternating: PAIRS times, start BIN_OLD then BIN_NEW (each
# `lode serve` on a fresh data directory, 127.0.0.1), run one lodeperf
# workload against it and print the server CPU figures, then stop it.
# The pairs of docs/benchmarks.md come from this script.
#
#   BIN_OLD=/tmp/lode-old BIN_NEW=/tmp/lode-new scripts/abpairs.sh 3 recent -rows 1000000 -runs 1 -n 100
#   BIN_OLD=... BIN_NEW=... scripts/abpairs.sh 5 eventlog -events 20000 -runs 1 -clients 1,16,64 -async-clients "" -duration 8s
#
# ENV_OLD / ENV_NEW ("NAME=value ...") set environment variables for one
# side (one binary with a knob). LODEPERF is the lodeperf binary (built
# from ../shared/bench/lodeperf when unset); OUT keeps each run's output
# (default a temporary directory).
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,14p' "$0"; exit 2; }
pairs=$1; shift
: "${BIN_OLD:?set BIN_OLD}" "${BIN_NEW:?set BIN_NEW}"
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
if [ -z "${LODEPERF:-}" ]; then
  LODEPERF=$out/lodeperf
  (cd "$(dirname "$0")/../../shared/bench/lodeperf" && go build -o "$LODEPERF" .)
fi
port=${PORT:-27617}
server=
# Each run's data directory is removed at the end, not before the next
# run: on a filesystem without a journal, ext4 skips inodes freed in the
# last minute or more when it allocates one, so every file the next
# server created would first step over the thousands just freed (a
# file's creation then cost up to a millisecond of CPU here;
# docs/benchmarks.md, fifteenth session).
dirs=()
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  [ ${#dirs[@]} -eq 0 ] || rm -rf "${dirs[@]}"
  true
}
trap cleanup EXIT
for i in $(seq 1 "$pairs"); do
  for side in old new; do
    if [ $side = old ]; then bin=$BIN_OLD; envs=${ENV_OLD:-}; else bin=$BIN_NEW; envs=${ENV_NEW:-}; fi
    dir=$(mktemp -d)
    dirs+=("$dir")
    # shellcheck disable=SC2086 # envs is a list of NAME=value words
    env $envs "$bin" serve --addr 127.0.0.1:$port --dir "$dir/db" --log-level warn > "$dir/log" 2>&1 &
    server=$!
    for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
    res=$out/$side-$i.txt
    timeout 30m "$LODEPERF" "$@" -uri "mongodb://127.0.0.1:$port/?directConnection=true" -pid "$server" > "$res"
    echo "== $side $i: $(grep '^CPU' "$res" || true)"
    grep -E '^(j|w1) ' "$res" | awk '{print "   ", $1, $2 " clients:", $3 " inserts/s, server/client µs per insert", $10}' || true
    kill "$server"; wait "$server" 2>/dev/null || true; server=
  done
done
echo "outputs: $out"
