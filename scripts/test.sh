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
# Servers already running (an editor's gopls, another session's) are not
# the suite's; any other left when the tests end outlived its test.
running=$(scripts/orphans.sh | cut -d' ' -f1 | tr '\n' ' ')
status=0
# The real-code corpus (internal/shadow) checks real projects with the
# batch checkers as ground truth: minutes, more on a loaded machine, so the
# package bound is raised from go test's default 10 minutes.
go test -count=1 -timeout 30m "$@" || status=$?
sleep 1 # a server killed as its test ended may still be exiting
# shellcheck disable=SC2086
orphans=$(scripts/orphans.sh $running)
if [ -n "$orphans" ]; then
  echo "processes left behind by the tests:" >&2
  echo "$orphans" >&2
  status=1
fi
exit $status
