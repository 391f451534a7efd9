#!/usr/bin/env bash
# Lists the processes of the servers Anvil runs, of its daemons (and of
# test binaries acting as one) that belong to one test run and are still
# running: after the suite, any such process outlived the test that
# started it.
#
#   scripts/orphans.sh RUN_DIR    # prints "pid command" per orphan
#
# A process belongs to the run when RUN_DIR (the run's private TMPDIR,
# see scripts/test.sh) is in its environment, its command line or its
# working directory: what the tests start inherits the TMPDIR, or is given
# a HOME, a socket or a workspace made under it. Another checkout's
# daemon, an editor's gopls or the user's own `anvil serve` never name
# it, so they are not counted, whenever they started.
set -euo pipefail
run=${1:?usage: orphans.sh RUN_DIR}
for d in /proc/[0-9]*; do
  pid=${d#/proc/}
  [ "$pid" = $$ ] && continue
  { cmd=$(tr '\0' ' ' < "$d/cmdline"); } 2>/dev/null || continue
  case "$cmd" in
    *" serve --socket "*|*"tsc --lsp"*|*gopls*|*pyright-langserver*|*tsserver.js*|*typescript-language-server*|*"Anvil's declaration emitter"*|*ANVIL_FAKE_LSP*|*.test\ *-test.run=^\$*) ;;
    *) continue ;;
  esac
  # One line per variable, each ended by a slash, as the working
  # directory: TMPDIR=RUN_DIR matches as well as a path beneath it.
  { env=$(tr '\0' '\n' < "$d/environ" | sed 's|$|/|'); } 2>/dev/null || env=""
  cwd=$(readlink "$d/cwd" 2>/dev/null || true)
  case "$env
$cmd
$cwd/" in
    *"$run/"*) ;;
    *) continue ;;
  esac
  state=$(awk '{print $3}' "$d/stat" 2>/dev/null || echo Z)
  [ "$state" = Z ] || echo "$pid $cmd"
done
