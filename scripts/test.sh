#!/usr/bin/env bash
# Anvil's test command: installs what the tests need (once), then vets and
# runs every test. Tests that need ripgrep or a language server fail, not
# skip, when it is missing.
#
#   scripts/test.sh [go test flags, e.g. -run Foo ./internal/tools/]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
export PATH="$(scripts/tools-dir.sh)/bin:$PATH"

unformatted=$(gofmt -l cmd internal)
if [ -n "$unformatted" ]; then
  echo "gofmt needed on:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...
if [ $# -eq 0 ]; then
  set -- ./...
fi
go test -count=1 "$@"
