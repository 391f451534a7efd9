#!/usr/bin/env bash
# Anvil's main job on a fresh machine: installs the language servers (once)
# and runs 'anvil demo', the whole pipeline on a bundled example project with
# replayed model turns (no API key needed). Extra arguments go to anvil demo
# (--ask, --keep, --json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh >&2
go run ./cmd/anvil demo "$@"
