#!/usr/bin/env bash
# Prints Anvil's tools directory, where install-servers.sh puts the language
# servers and where anvil looks for them after PATH.
echo "${ANVIL_TOOLS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/anvil/tools}"
