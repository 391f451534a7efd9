#!/usr/bin/env bash
# Benchmarks edit validation (internal/shadow/bench_test.go) against the
# real language servers and the batch checkers a user would otherwise run,
# then text search (scripts/bench-search.sh) when that script is present.
# Prints markdown tables on stdout; go test's own output goes to stderr.
# Other work on the machine shows up as noise: the load average is printed
# before and after, so compare quiet runs.
#
#   scripts/bench.sh [raw-output-dir]
#
# The iteration counts are fixed (-benchtime Nx) so that runs take the same
# time, about 5 minutes on 2 cores: 20 for the warm cases, 8 for the warm
# cases on the gopls source (an iteration there takes a second or two), 3
# for the cold starts and the batch checkers, which take seconds each. The
# search benchmarks then run SEARCH_ROUNDS rounds (default 3, under a
# minute; 0 skips them).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(scripts/tools-dir.sh)/bin:$PATH"

raw="${1:-}"
if [ -z "$raw" ]; then
  raw=$(mktemp -d)
  trap 'rm -rf "$raw"' EXIT
fi
mkdir -p "$raw"

warm_cases='(warm-error|warm-clean|importers|back-to-back|server-only)'
bench() { # name benchtime regexp
  echo "== $1: go test -bench '$3' -benchtime $2" >&2
  go test -run '^$' -bench "$3" -benchtime "$2" -timeout 60m ./internal/shadow | tee "$raw/$1.txt" >&2
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
bench warm 20x "^BenchmarkValidate\$/^(tsgo|tsserver|gopls|pyright)\$/^(ts-small|ts-1000|ts-1000-ts5|zod|rxjs|go-small|cobra|py-small|py-300|requests)\$/^$warm_cases\$"
bench warm-gopls-src 8x "^BenchmarkValidate\$/^gopls\$/^gopls-src\$/^$warm_cases\$"
bench cold-batch 3x '^BenchmarkValidate$/././^(cold|batch-error|batch-clean)$'
bench importgraph 20x '^BenchmarkImportGraph$'
elapsed=$(( $(date +%s) - start ))

echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'),"\
  "$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version | cut -d' ' -f3)."
echo "Load average before: $load_before; after: $(cut -d' ' -f1-3 /proc/loadavg). Validation benchmarks took ${elapsed} s."
echo

cat "$raw"/warm.txt "$raw"/warm-gopls-src.txt "$raw"/cold-batch.txt "$raw"/importgraph.txt | awk '
# Milliseconds, to a precision that suits their size.
function ms(v) {
	if (v == "") return "–"
	if (v < 10) return sprintf("%.1f ms", v)
	if (v < 10000) return sprintf("%.0f ms", v)
	return sprintf("%.1f s", v / 1000)
}
function pair(a, b) { return ms(a) " / " ms(b) }
/^Benchmark/ {
	n = split($1, part, "/")
	sub(/-[0-9]+$/, "", part[n])
	key = part[2] "/" part[3] (n > 3 ? "/" part[4] : "")
	for (i = 3; i < NF; i += 2) v[key, $(i + 1)] = $i
	v[key, "ms/op"] = $3 / 1e6
	if (part[1] == "BenchmarkValidate" && !((part[2] "/" part[3]) in seen)) {
		seen[part[2] "/" part[3]] = 1
		projects[part[2]] = projects[part[2]] " " part[3]
	}
	if (part[1] == "BenchmarkImportGraph" && !(part[2] in gseen)) {
		gseen[part[2]] = 1
		gorder[++gcount] = part[2]
	}
}
END {
	# Rows by server, then projects in the order the benchmarks ran.
	split("tsgo tsserver gopls pyright", servers, " ")
	for (i = 1; i <= 4; i++) {
		np = split(projects[servers[i]], ps, " ")
		for (j = 1; j <= np; j++) order[++count] = servers[i] "/" ps[j]
	}
	if (count == 0) { print "no benchmark results" > "/dev/stderr"; exit 1 }
	print "Validation latency: p50 over the iterations unless marked p90; \"a / b\" is the error edit / the clean edit."
	print ""
	print "| server | project | cold | warm p50 | warm p90 | with importers p50 (p90) | batch alternative p50 | RSS |"
	print "|---|---|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= count; i++) {
		k = order[i]; split(k, sp, "/")
		rss = 0
		split("warm-error warm-clean importers back-to-back", wc, " ")
		for (j = 1; j <= 4; j++) if (v[k "/" wc[j], "RSS-MiB"] > rss) rss = v[k "/" wc[j], "RSS-MiB"]
		printf "| %s | %s | %s | %s | %s | %s (%s) | %s | %s |\n", sp[1], sp[2],
			ms(v[k "/cold", "p50-ms"]),
			pair(v[k "/warm-error", "p50-ms"], v[k "/warm-clean", "p50-ms"]),
			pair(v[k "/warm-error", "p90-ms"], v[k "/warm-clean", "p90-ms"]),
			ms(v[k "/importers", "p50-ms"]), ms(v[k "/importers", "p90-ms"]),
			pair(v[k "/batch-error", "p50-ms"], v[k "/batch-clean", "p50-ms"]),
			(rss ? sprintf("%.0f MiB", rss) : "–")
	}
	print ""
	print "What a validation adds to the server'"'"'s own time for the same error edit, and what it checks."
	print ""
	print "| server | project | server alone p50 (p90) | warm-error p50 | ratio | back-to-back p50 (p90) | importers: files checked / with new errors |"
	print "|---|---|---:|---:|---:|---:|---:|"
	for (i = 1; i <= count; i++) {
		k = order[i]; split(k, sp, "/")
		own = v[k "/server-only", "p50-ms"]; w = v[k "/warm-error", "p50-ms"]
		printf "| %s | %s | %s (%s) | %s | %s | %s (%s) | %d / %d |\n", sp[1], sp[2],
			ms(own), ms(v[k "/server-only", "p90-ms"]), ms(w),
			(own > 0 ? sprintf("%.1fx", w / own) : "–"),
			ms(v[k "/back-to-back", "p50-ms"]), ms(v[k "/back-to-back", "p90-ms"]),
			v[k "/importers", "checked-files"], v[k "/importers", "new-error-files"]
	}
	if (gcount > 0) {
		print ""
		print "Finding the dependants of the most imported file (the import graph, per validation with a pull server)."
		print ""
		print "| project | first (parses every file) | cached (every later validation) |"
		print "|---|---:|---:|"
		for (i = 1; i <= gcount; i++) {
			g = gorder[i]
			printf "| %s | %s | %s |\n", g, ms(v[g "/first", "ms/op"]), ms(v[g "/cached", "ms/op"])
		}
	}
}'

echo
echo "anvil check end to end, the process start included (cmd/anvil BenchmarkCheck):"
echo
go test -run '^$' -bench '^BenchmarkCheck$' -benchtime 10x -timeout 30m ./cmd/anvil 2>&1 | tee "$raw/check.txt" >&2
awk '
/^BenchmarkCheck\// {
	split($1, p, "/"); sub(/-[0-9]+$/, "", p[3])
	v = ""; rss = ""
	for (i = 4; i < NF; i++) {
		if ($(i+1) == "p50-ms") p50 = $i
		if ($(i+1) == "p90-ms") p90 = $i
		if ($(i+1) == "daemon-RSS-MiB") rss = $i " MiB"
	}
	cell[p[2], p[3]] = sprintf("%s ms (%s)", p50, p90)
	if (rss != "") mem[p[2]] = rss
	if (!(p[2] in seen)) { seen[p[2]] = 1; order[++n] = p[2] }
}
END {
	print "| project | cold, servers of its own p50 (p90) | warm through the daemon p50 (p90) | check_changes over MCP p50 (p90) | daemon + servers RSS |"
	print "|---|---:|---:|---:|---:|"
	for (i = 1; i <= n; i++) {
		q = order[i]
		printf "| %s | %s | %s | %s | %s |\n", q, cell[q, "cold"], cell[q, "daemon-warm"], cell[q, "mcp-warm"], mem[q]
	}
}' "$raw/check.txt"

rounds="${SEARCH_ROUNDS:-3}"
if [ -x scripts/bench-search.sh ] && [ "$rounds" -gt 0 ]; then
  echo
  echo "Text search (scripts/bench-search.sh $rounds):"
  echo
  scripts/bench-search.sh "$rounds"
fi

echo
echo "Parsing (ast_search's tree-sitter layer, internal/syntax):"
echo
go test -run '^$' -bench '^BenchmarkSyntax' -benchtime 5x ./internal/syntax 2>&1 | tee "$raw/syntax.txt" >&2
awk '
/^BenchmarkSyntax(Parse|Symbols)\// {
	split($1, p, "/"); sub(/-[0-9]+$/, "", p[2])
	what = (p[1] == "BenchmarkSyntaxParse") ? "parse" : "parse + extract every kind, uncached"
	rows[++n] = sprintf("| %s | %s | %s MB/s |", p[2], what, $5)
}
/^BenchmarkSyntaxFunctionsDir\// {
	split($1, p, "/"); sub(/-[0-9]+$/, "", p[2])
	rows[++n] = sprintf("| functions in GOROOT/src/net/http (%s files) | %s cache | %.1f ms |", $5, p[2], $3 / 1e6)
}
END {
	print "| input | what | speed |"
	print "|---|---|---:|"
	for (i = 1; i <= n; i++) print rows[i]
}' "$raw/syntax.txt"
