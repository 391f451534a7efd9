#!/usr/bin/env bash
# Installs what Anvil's tests and the demo need beside Go:
# - Debian packages (apt): ripgrep, patch, python3-pytest, cargo, mypy,
#   python3-requests, librust-form-urlencoded-dev (crate sources), tmux, git,
#   and clangd (the C/C++ server), pinned to Debian 12's version;
# - the pinned language servers (scripts/install-servers.sh): TypeScript 7
#   (tsc --lsp), pyright, TypeScript 6's tsserver (npm) and gopls (go install);
# - the MCP client the tests drive `anvil mcp` with, the MCP Inspector, with
#   the Node 22 it needs (scripts/install-test-clients.sh, npm).
# Skips what is already present. apt needs root or sudo; without either, it
# says what to install and goes on (text_search then uses its Go fallback).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

missing=()
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
command -v patch >/dev/null 2>&1 || missing+=(patch)   # the diff tests apply what they render
# the run stage's Python tests run Debian's pytest
/usr/bin/python3 -c 'import pytest' >/dev/null 2>&1 || missing+=(python3-pytest)
command -v cargo >/dev/null 2>&1 || missing+=(cargo)    # and its Rust tests, cargo
# the gate's [check] and cargo check suites run on real code: mypy over
# Debian's requests sources, cargo over Debian's crate sources (offline)
command -v mypy >/dev/null 2>&1 || missing+=(mypy)
[ -d /usr/lib/python3/dist-packages/requests ] || missing+=(python3-requests)
[ -d /usr/share/cargo/registry/form_urlencoded-1.1.0 ] || missing+=(librust-form-urlencoded-dev)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)      # the interactive session is tested in a real terminal
command -v git >/dev/null 2>&1 || missing+=(git)        # [git] commit is tested against git itself
# the C/C++ server: Debian 12's clangd (14), whose behaviour the gate's
# C/C++ check was measured against
CLANGD_VERSION=1:14.0-55.7~deb12u1
if [ "$(dpkg-query -W -f='${Version}' clangd 2>/dev/null || true)" != "$CLANGD_VERSION" ]; then
  missing+=("clangd=$CLANGD_VERSION")
fi
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=$(command -v sudo || true)
  if [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; then
    echo "installing ${missing[*]} (apt)"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "missing ${missing[*]} and apt needs root: install those Debian packages" >&2
  fi
fi

"$here/install-servers.sh"
"$here/install-test-clients.sh"
