#!/usr/bin/env bash
# The gate's differential fuzzer (internal/gatefuzz), a long campaign:
# random small projects and edits, each judged by the gate (in this
# process, as `anvil check --no-daemon`; through a daemon with --path
# daemon; through the pre-edit and end-of-turn hooks with --path hooks)
# and by the batch checker (tsc -b, the pyright command line, go build and
# go vet, every entry of a C project's compile_commands.json with
# -fsyntax-only, cargo check --workspace --all-targets). Disagreements are
# minimised into
# internal/gatefuzz/testdata/cases (at most 3 of each class per language),
# which TestGateFuzzCases replays; the counts are added to the table in
# docs/corpus.md. TypeScript's projects are also checked by TypeScript 6's
# tsc -b (ts-legacy), and every trial where its errors differ from 7's is
# counted as a compiler disagreement, in the row's why and in a line
# before the last.
#
#   scripts/fuzz-gate.sh [--lang ts|py|go|c|rust] [--trials N] [--seed S] [--path local|daemon|hooks] [--pin VERSION]
#
# --pin (TypeScript through the hooks) pins the workspace to a TypeScript
# version that is not installed, so that tsserver of Anvil's TypeScript 6
# checks, and TypeScript 7's server in its place where the proof holds;
# each edit is rehearsed first so that the proof and the server's loading
# are done (internal/gatefuzz/pinned_test.go).
#
# Last lines: fuzz: D compiler disagreements (TypeScript 6 vs 7) (when
# TypeScript ran), then
# fuzz: N trials, F false cleans, R false rejects, U unverified
set -euo pipefail
cd "$(dirname "$0")/.."

lang="" trials=200 seed=$(date +%s) path=local pin=
while [ $# -gt 0 ]; do
  case "$1" in
    --lang) lang=$2; shift 2 ;;
    --trials) trials=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --path) path=$2; shift 2 ;;
    --pin) pin=$2; shift 2 ;;
    *) echo "usage: $0 [--lang ts|py|go|c|rust] [--trials N] [--seed S] [--path local|daemon|hooks] [--pin VERSION]" >&2; exit 2 ;;
  esac
done

export PATH="$(scripts/tools-dir.sh)/bin:$PATH"
rows=$(mktemp)
log=$(mktemp)
trap 'rm -f "$rows" "$log"' EXIT
echo "fuzz: seed $seed, $trials trials per language${lang:+ ($lang)}" >&2
status=0
nice -n 10 go test -count=1 -v -timeout 24h -run 'TestGateFuzzCampaign' ./internal/gatefuzz/ \
  -args -fuzz.lang="$lang" -fuzz.trials="$trials" -fuzz.seed="$seed" -fuzz.path="$path" -fuzz.pin="$pin" -fuzz.out="$rows" | tee "$log" >&2 || status=$?

# The rows go at the end of the fuzzer's table in docs/corpus.md.
if [ -s "$rows" ]; then
  awk -v rows="$rows" '
    /^## The gate fuzzer/ { in_section = 1 }
    in_section && /^\|/ { in_table = 1 }
    in_table && !/^\|/ { while ((getline line < rows) > 0) print line; in_table = 0; in_section = 0; done = 1 }
    { print }
    END { if (in_table && !done) while ((getline line < rows) > 0) print line }
  ' docs/corpus.md > docs/corpus.md.new && mv docs/corpus.md.new docs/corpus.md
fi

# The compiler disagreements' line also starts "fuzz: N": each sum reads
# only its own lines (none when TypeScript did not run, or the test ended
# early: grep's status must not end the script before its last line).
{ grep '^fuzz: [0-9]* compiler disagreements' "$log" || true; } | awk '{ d += $2; seen = 1 }
  END { if (seen) printf "fuzz: %d compiler disagreements (TypeScript 6 vs 7)\n", d }'
{ grep '^fuzz: [0-9]* trials,' "$log" || true; } | awk '{ n += $2; f += $4; r += $7; u += $10 }
  END { printf "fuzz: %d trials, %d false cleans, %d false rejects, %d unverified\n", n, f, r, u }'
exit $status
