#!/usr/bin/env bash
# Anvil's main job on a fresh machine: installs the one language server the
# demo needs (TypeScript 7's), builds anvil, and runs 'anvil demo', the whole
# pipeline on a bundled example project with replayed model turns (no API
# key needed). Extra arguments go to anvil demo (--ask, --keep, --json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-servers.sh --only typescript >&2
bin="${XDG_CACHE_HOME:-$HOME/.cache}/anvil/bin/anvil"
mkdir -p "$(dirname "$bin")"
if [ ! -x "$bin" ] || [ -n "$(find cmd internal go.mod go.sum -newer "$bin" -print -quit 2>/dev/null)" ]; then
  echo "building anvil (the first time takes a few minutes: tree-sitter's grammars are C)…" >&2
  go build -o "$bin" ./cmd/anvil
fi
exec "$bin" demo "$@"
