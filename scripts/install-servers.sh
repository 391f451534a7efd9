#!/usr/bin/env bash
# Installs the language servers Anvil validates edits with, at pinned versions,
# into Anvil's own tools directory (where `anvil` looks after PATH and the
# workspace's node_modules/.bin). Safe to run again: pinned installs are skipped
# when the right version is already there.
#
#   scripts/install-servers.sh [--only typescript] [TOOLS_DIR]
#
# --only typescript installs TypeScript 7's server alone (what the demo
# needs). TOOLS_DIR defaults to $ANVIL_TOOLS_DIR, then
# $XDG_DATA_HOME/anvil/tools, then ~/.local/share/anvil/tools. Needs
# node/npm, and go for gopls.
set -euo pipefail

only=""
if [ "${1:-}" = "--only" ]; then
  only=$2
  shift 2
fi

TYPESCRIPT_VERSION=7.0.2            # native server: tsc --lsp --stdio
TYPESCRIPT_LEGACY_VERSION=6.0.3     # the last TypeScript with lib/tsserver.js: checks projects
                                    # pinned to TypeScript <= 6 that have no node_modules
PYRIGHT_VERSION=1.1.414
GOPLS_VERSION=v0.23.0               # v0.24 needs Go 1.27

dir=${1:-$("$(dirname "$0")/tools-dir.sh")}
mkdir -p "$dir/bin"
dir=$(cd "$dir" && pwd)

npm_pkg_version() { # prefix package
  node -p "require('$1/node_modules/$2/package.json').version" 2>/dev/null || true
}

if [ "$only" = typescript ]; then
  if [ "$(npm_pkg_version "$dir/node" typescript)" != "$TYPESCRIPT_VERSION" ]; then
    echo "installing typescript@$TYPESCRIPT_VERSION"
    mkdir -p "$dir/node"
    npm install --prefix "$dir/node" --no-audit --no-fund --loglevel=error "typescript@$TYPESCRIPT_VERSION"
  fi
  ln -sf "../node/node_modules/.bin/tsc" "$dir/bin/tsc"
  echo "TypeScript's server ready in $dir/bin"
  exit 0
fi

if [ "$(npm_pkg_version "$dir/node" typescript)" != "$TYPESCRIPT_VERSION" ] ||
   [ "$(npm_pkg_version "$dir/node" pyright)" != "$PYRIGHT_VERSION" ]; then
  echo "installing typescript@$TYPESCRIPT_VERSION pyright@$PYRIGHT_VERSION"
  mkdir -p "$dir/node"
  npm install --prefix "$dir/node" --no-audit --no-fund --loglevel=error \
    "typescript@$TYPESCRIPT_VERSION" \
    "pyright@$PYRIGHT_VERSION"
fi
rm -f "$dir/bin/typescript-language-server" # no longer used
for b in tsc pyright pyright-langserver; do
  ln -sf "../node/node_modules/.bin/$b" "$dir/bin/$b"
done

if [ "$(npm_pkg_version "$dir/ts-legacy" typescript)" != "$TYPESCRIPT_LEGACY_VERSION" ]; then
  echo "installing typescript@$TYPESCRIPT_LEGACY_VERSION (tsserver, for projects pinned to TypeScript <= 6)"
  mkdir -p "$dir/ts-legacy"
  npm install --prefix "$dir/ts-legacy" --no-audit --no-fund --loglevel=error "typescript@$TYPESCRIPT_LEGACY_VERSION"
fi

if ! "$dir/bin/gopls" version 2>/dev/null | grep -q "$GOPLS_VERSION"; then
  echo "installing gopls@$GOPLS_VERSION"
  GOBIN="$dir/bin" go install "golang.org/x/tools/gopls@$GOPLS_VERSION"
fi

echo "language servers ready in $dir/bin"
