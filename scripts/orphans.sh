#!/usr/bin/env bash
# Lists processes of the servers Anvil runs, of its daemons (and of test binaries acting as
# one) that are not in the given list of pids: after the test suite, any such
# process outlived the test that started it.
#
#   scripts/orphans.sh [pid...]    # prints "pid command" per orphan
set -euo pipefail
declare -A before=()
for p in "$@"; do before[$p]=1; done
for d in /proc/[0-9]*; do
  pid=${d#/proc/}
  [ -n "${before[$pid]:-}" ] && continue
  { cmd=$(tr '\0' ' ' < "$d/cmdline"); } 2>/dev/null || continue
  case "$cmd" in
    *" serve --socket "*|*"tsc --lsp"*|*gopls*|*pyright-langserver*|*tsserver.js*|*typescript-language-server*|*"Anvil's declaration emitter"*|*ANVIL_FAKE_LSP*|*.test\ *-test.run=^\$*)
      state=$(awk '{print $3}' "$d/stat" 2>/dev/null || echo Z)
      [ "$state" = Z ] || echo "$pid $cmd" ;;
  esac
done
