#!/usr/bin/env bash
# The project's test command: vet, then every Go test, including the ones
# that drive mongosh and pymongo against `lode serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
unformatted=$(gofmt -l $(git ls-files '*.go') 2>/dev/null || true)
if [ -n "$unformatted" ]; then
  echo "gofmt needed:"; echo "$unformatted"; exit 1
fi
go vet ./...
go test -count=1 -timeout 20m ./... "$@"
