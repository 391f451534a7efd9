#!/usr/bin/env bash
# Benchmarks text_search's engines on Go's own source tree, $(go env GOROOT)/src:
# bare rg (the baseline: the same flags without --json, output discarded),
# the ripgrep engine and the pure-Go engine, for a regex and a literal.
# Prints a markdown table of the median and the fastest of COUNT runs; the
# ratio compares medians. Other work on the machine shows up as noise, so
# compare runs made on a quiet machine.
#
#   scripts/bench-search.sh [count]    (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-10}"

go test -run '^$' -bench '^BenchmarkSearch$' -benchtime 10x -count "$count" ./internal/search |
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
