#!/usr/bin/env bash
# Anvil's test command: installs what the tests need (once), then vets and
# runs every test. Tests that need ripgrep or a language server fail, not
# skip, when it is missing.
#
#   scripts/test.sh [go test flags, e.g. -run Foo ./internal/tools/]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
# The tests look for what the script installed in the same directory
# (servers.DefaultToolsDir reads ANVIL_TOOLS_DIR first).
ANVIL_TOOLS_DIR=$(scripts/tools-dir.sh)
export ANVIL_TOOLS_DIR
export PATH="$ANVIL_TOOLS_DIR/bin:$PATH"

# A rustup install's cargo on PATH is a proxy in CARGO_HOME/bin that finds
# its toolchains in RUSTUP_HOME, by default ~/.cargo and ~/.rustup: under
# another HOME (an empty one) it says no toolchain is installed. Its homes
# are then the ones the proxy on PATH lives in, as rustup's installer laid
# them out (side by side).
if ! cargo --version >/dev/null 2>&1 && [ -z "${RUSTUP_HOME:-}${CARGO_HOME:-}" ]; then
  proxy=$(command -v cargo || true)
  cargo_home=$(dirname "$(dirname "${proxy:-/}")")
  if [ -n "$proxy" ] && [ -x "$cargo_home/bin/rustup" ] && [ -d "$(dirname "$cargo_home")/.rustup" ]; then
    export CARGO_HOME=$cargo_home RUSTUP_HOME=$(dirname "$cargo_home")/.rustup
    cargo --version >/dev/null || { echo "cargo on PATH does not run, even with RUSTUP_HOME=$RUSTUP_HOME" >&2; exit 1; }
  fi
fi

unformatted=$(gofmt -l cmd internal)
if [ -n "$unformatted" ]; then
  echo "gofmt needed on:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...
# The run's own TMPDIR: every temporary directory the tests make (their
# workspaces, HOMEs, sockets) is under it, so what the suite started, and
# only that, can be told apart from other work on the machine afterwards
# (scripts/orphans.sh).
run=$(mktemp -d "${TMPDIR:-/tmp}/anvil.XXXXXX")
# Like /tmp: tests that run a binary as another user (nobody) reach it there.
chmod 1777 "$run"
trap 'rm -rf "$run"' EXIT
status=0
if [ $# -gt 0 ]; then
  TMPDIR=$run go test -count=1 -timeout 30m "$@" || status=$?
else
  # The real-code corpus (internal/shadow) checks real projects with the
  # batch checkers as ground truth, and the gate fuzzer's sample
  # (internal/gatefuzz) runs some 300 generated trials through the gate
  # and the batch checkers: minutes each, many more on a loaded 2-core
  # machine, where they ran their packages past go test's bound (the
  # fuzzer's sample took 27 minutes at a load of 10). Each runs as a go
  # test of its own, under a bound of its own; every other test under go
  # test's 30 minutes per package.
  corpus='^(TestRealCodeCorpus|TestCutoffHeldToBatchChecker|TestCutoffAsksTheCompiler|TestCutoffMutationsHeldToBatchChecker)$'
  packages=$(go list ./... | grep -v '/internal/gatefuzz$')
  # shellcheck disable=SC2086 # one package per word
  TMPDIR=$run go test -count=1 -timeout 30m -skip "$corpus" $packages || status=$?
  TMPDIR=$run go test -count=1 -timeout 75m ./internal/gatefuzz/ || status=$?
  TMPDIR=$run go test -count=1 -timeout 75m -run "$corpus" ./internal/shadow/ || status=$?
fi
sleep 1 # a server killed as its test ended may still be exiting
orphans=$(scripts/orphans.sh "$run")
if [ -n "$orphans" ]; then
  echo "processes left behind by the tests:" >&2
  echo "$orphans" >&2
  status=1
fi
exit $status
