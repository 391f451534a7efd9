#!/usr/bin/env bash
# Prints Anvil's tools directory, where install-servers.sh puts the language
# servers and where anvil looks for them after PATH: $ANVIL_TOOLS_DIR, else
# $XDG_DATA_HOME/anvil/tools, else ~/.local/share/anvil/tools.
#
# Under a HOME that has no tools directory (a fresh, empty HOME), the one in
# the account's own home (its passwd entry's) is printed when the tools
# were installed there: the scripts find what they installed before, as
# Maven finds ~/.m2, instead of installing it all again. On a machine with
# none anywhere (CI's first run), it is the one under HOME.
set -eu
if [ -n "${ANVIL_TOOLS_DIR:-}" ]; then
  echo "$ANVIL_TOOLS_DIR"
  exit 0
fi
if [ -n "${XDG_DATA_HOME:-}" ]; then
  echo "$XDG_DATA_HOME/anvil/tools"
  exit 0
fi
dir=${HOME:-}/.local/share/anvil/tools
if [ ! -d "$dir/bin" ]; then
  own=$(getent passwd "$(id -u)" 2>/dev/null | cut -d: -f6 || true)
  if [ -n "$own" ] && [ -d "$own/.local/share/anvil/tools/bin" ]; then
    dir=$own/.local/share/anvil/tools
  fi
fi
echo "$dir"
