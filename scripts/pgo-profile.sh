#!/usr/bin/env bash
# Writes cmd/lode/default.pgo, the CPU profile that `go build` uses for
# profile-guided optimization of the lode binary (docs/benchmarks.md,
# "Profile-guided optimization"). It runs the seeds' workloads
# (../shared/bench/lodeperf: recent, queue, metadata, eventlog) against a
# `lode serve` built without a profile, on 127.0.0.1 and a temporary data
# directory, takes CPU profiles through --pprof all along, and merges them.
# Run it from the project root after changes that move the hot paths.
#
#   scripts/pgo-profile.sh            # about six minutes
set -euo pipefail
root=$(pwd)
bench=${LODEPERF_SRC:-$root/../shared/bench/lodeperf}
work=$(mktemp -d)
port=${PORT:-27627}
pport=${PPROF_PORT:-27628}
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
  true
}
trap cleanup EXIT
go build -pgo=off -o "$work/lode" ./cmd/lode
(cd "$bench" && go build -o "$work/lodeperf" .)
uri="mongodb://127.0.0.1:$port/?directConnection=true"
run() { # a workload, with CPU profiles of 15 s taken until it ends
  "$work/lode" serve --addr 127.0.0.1:$port --dir "$work/db-$1" --log-level warn --pprof 127.0.0.1:$pport > "$work/log-$1" 2>&1 &
  server=$!
  for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
  timeout 20m "$work/lodeperf" "$@" -uri "$uri" -pid "$server" > "$work/out-$1" &
  local perf=$! i=0
  while kill -0 "$perf" 2>/dev/null; do
    i=$((i + 1))
    curl -sf -o "$work/prof-$1-$i" "http://127.0.0.1:$pport/debug/pprof/profile?seconds=15" || true
  done
  wait "$perf"
  kill "$server"; wait "$server" 2>/dev/null || true; server=
  rm -rf "$work/db-$1"
}
run recent -rows 1000000 -runs 3
run queue -jobs 200000 -duration 10s
run metadata -docs 200000 -duration 10s -warmup 2s
run eventlog -events 2000000 -runs 2 -clients 1,16,64 -async-clients 16 -duration 10s
profiles=()
for p in "$work"/prof-*; do [ -s "$p" ] && profiles+=("$p"); done
go tool pprof -proto "${profiles[@]}" > cmd/lode/default.pgo
echo "cmd/lode/default.pgo: ${#profiles[@]} profiles, $(wc -c < cmd/lode/default.pgo) bytes"
