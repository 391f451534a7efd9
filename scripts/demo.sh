#!/usr/bin/env bash
# Anvil's main job on a fresh machine: installs the one language server the
# demo needs (TypeScript 7's), installs anvil with `go install ./cmd/anvil`
# (the one binary the README's install makes, in $(go env GOBIN), else
# $(go env GOPATH)/bin), and runs 'anvil demo', the whole pipeline on a
# bundled example project with replayed model turns (no API key needed).
# Extra arguments go to anvil demo (--ask, --keep, --json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-servers.sh --only typescript >&2
gobin=$(go env GOBIN)
gobin=${gobin:-$(go env GOPATH)/bin}
echo "installing anvil into $gobin (go install ./cmd/anvil; the first time takes a few minutes: tree-sitter's grammars are C)…" >&2
go install ./cmd/anvil
status=0
"$gobin/anvil" demo "$@" || status=$?
{
  case ":$PATH:" in
    *":$gobin:"*) ;;
    *) echo "anvil is $gobin/anvil, which is not on your PATH: export PATH=\"$gobin:\$PATH\"" ;;
  esac
  if [ "${ANVIL_DAEMON:-}" != off ]; then
    echo "the Anvil daemon the demo started keeps its language servers warm for later runs, and exits after 15 idle minutes; 'anvil serve stop' stops it now"
  fi
} >&2
exit "$status"
