#!/usr/bin/env bash
# Replays a package's successive npm releases through `anvil replay`: a git
# repository whose commits are the package's TypeScript sources, one
# release each, checked as the project's own tsc checks them.
#
#   scripts/replay-npm-releases.sh zod 3.25.71 3.25.72 3.25.73 3.25.74 3.25.75 3.25.76
#
# The repository is made in a temporary directory (kept, and named on
# stderr); the report goes to stdout and, as JSON, to $REPLAY_JSON if set.
# The tests of each release (they need vitest) are left out of the project.
set -euo pipefail
pkg=$1; shift
[ $# -ge 2 ] || { echo "usage: $0 PACKAGE VERSION VERSION..." >&2; exit 2; }
anvil=${ANVIL:-anvil}
dir=$(mktemp -d "${TMPDIR:-/tmp}/anvil-replay-$pkg-XXXXXX")
echo "repository: $dir" >&2
git -C "$dir" init -q -b main
export GIT_AUTHOR_NAME=replay GIT_AUTHOR_EMAIL=replay@example.invalid GIT_COMMITTER_NAME=replay GIT_COMMITTER_EMAIL=replay@example.invalid
cat > "$dir/package.json" <<JSON
{"name": "$pkg-releases", "private": true, "type": "module"}
JSON
cat > "$dir/tsconfig.json" <<'JSON'
{"compilerOptions": {"strict": true, "noEmit": true, "module": "nodenext", "moduleResolution": "nodenext",
  "target": "es2022", "skipLibCheck": true, "lib": ["es2022", "dom"]},
 "include": ["src"], "exclude": ["src/**/tests/**", "src/**/*.test.ts", "src/**/benchmarks/**"]}
JSON
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for v in "$@"; do
	(cd "$work" && npm pack --silent "$pkg@$v" >/dev/null)
	mkdir -p "$work/$v" && tar -xzf "$work/$pkg-$v.tgz" -C "$work/$v"
	rm -rf "$dir/src" && cp -r "$work/$v/package/src" "$dir/src"
	find "$dir/src" \( -path '*/tests/*' -o -name '*.test.ts' -o -path '*/benchmarks/*' \) -type f -delete
	git -C "$dir" add -A && git -C "$dir" commit -q -m "$pkg $v"
done
json=()
[ -n "${REPLAY_JSON:-}" ] && json=(--json "$REPLAY_JSON")
"$anvil" replay -C "$dir" --commits $(($# - 1)) "${json[@]}"
