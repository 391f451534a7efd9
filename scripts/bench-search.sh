#!/usr/bin/env bash
# Benchmarks text_search's engines on Go's own source tree, $(go env GOROOT)/src:
# bare rg (the baseline: the same flags without --json, output discarded),
# the ripgrep engine and the pure-Go engine, for a regex and a literal (the
# targets), a case-insensitive literal and a regex with no literal part.
#
# It runs ROUNDS rounds of every benchmark, one round after the other, and
# prints a markdown table of the median and the fastest round; the ratio
# compares medians. Taking the rounds in turn, rather than all runs of one
# benchmark and then the next, spreads the noise of other work on the
# machine over every row alike.
#
#   scripts/bench-search.sh [rounds]    (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-10}"

bin="$(mktemp -d)/search.test"
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./internal/search
(
  cd internal/search
  for _ in $(seq "$rounds"); do
    "$bin" -test.run '^$' -test.bench '^BenchmarkSearch$' -test.benchtime 5x
  done
) |
awk '
function sorted(key,    i, j, t) {
	for (i = 1; i <= n[key]; i++) s[i] = v[key, i]
	for (i = 2; i <= n[key]; i++)
		for (j = i; j > 1 && s[j-1] > s[j]; j--) { t = s[j]; s[j] = s[j-1]; s[j-1] = t }
}
function median(key) {
	sorted(key)
	return n[key] % 2 ? s[(n[key]+1)/2] : (s[n[key]/2] + s[n[key]/2+1]) / 2
}
function fastest(key) { sorted(key); return s[1] }
/^BenchmarkSearch\// {
	split($1, part, "/")
	query = part[2]; engine = part[3]; sub(/-[0-9]+$/, "", engine)
	key = query "/" engine
	v[key, ++n[key]] = $3 + 0
	if (!(query in seen)) { seen[query] = 1; queries[++nq] = query }
}
END {
	if (nq == 0) { print "no benchmark results" > "/dev/stderr"; exit 1 }
	split("rg-bare ripgrep go", engines, " ")
	print "| query | engine | ms/op (median) | ms/op (fastest) | vs bare rg |"
	print "|---|---|---:|---:|---:|"
	for (i = 1; i <= nq; i++) {
		base = median(queries[i] "/rg-bare")
		for (e = 1; e <= 3; e++) {
			key = queries[i] "/" engines[e]
			m = median(key)
			printf "| %s | %s | %.1f | %.1f | %.2fx |\n", queries[i], engines[e], m / 1e6, fastest(key) / 1e6, m / base
		}
	}
}'
