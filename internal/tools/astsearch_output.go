package tools

import (
	"fmt"
	"strings"
)

// gather moves the per-file results into data, in path order, up to the cap.
func gather(data *ASTSearchData, files []astFile, req *astRequest) {
	for _, f := range files {
		if f.skipped != "" {
			data.Skipped = append(data.Skipped, ASTSkipped{Path: f.rel, Reason: f.skipped})
			continue
		}
		data.Files++
		data.Total += f.total
		for _, s := range f.symbols {
			if len(data.Symbols) < astMaxResults {
				data.Symbols = append(data.Symbols, ASTSymbol{Path: f.rel, Symbol: s})
			}
		}
		for _, c := range f.captures {
			if len(data.Captures) < astMaxResults {
				data.Captures = append(data.Captures, ASTCapture{Path: f.rel, Language: f.lang, Capture: c})
			}
		}
	}
	if len(req.rejected) > 0 {
		names := make([]string, len(req.rejected))
		for i, l := range req.rejected {
			names[i] = l.String()
		}
		data.Warnings = append(data.Warnings, fmt.Sprintf("the query does not compile for %s, so those files were not searched", strings.Join(names, ", ")))
	}
}

// formatAST renders data for the model: one line per result, then a
// summary of what was searched and skipped.
func formatAST(d ASTSearchData, req *astRequest, where string) string {
	var b strings.Builder
	shown := len(d.Symbols) + len(d.Captures)
	for _, s := range d.Symbols {
		fmt.Fprintf(&b, "%s:%d %s %s  %s\n", s.Path, s.Line, s.Kind, s.Name, s.Signature)
	}
	for _, c := range d.Captures {
		fmt.Fprintf(&b, "%s:%d:%d @%s %s  %s\n", c.Path, c.Line, c.Column, c.Name, c.NodeType, c.Text)
	}
	if more := d.Total - shown; more > 0 {
		fmt.Fprintf(&b, "... %d more results not shown; narrow with name, path or language\n", more)
	}
	what := plural(d.Total, "result", "results")
	if req.queries == nil {
		what = plural(d.Total, req.kind.String(), req.kind.Plural())
	}
	if d.Total == 0 {
		fmt.Fprintf(&b, "no %s found", what)
	} else {
		fmt.Fprintf(&b, "%d %s", d.Total, what)
	}
	fmt.Fprintf(&b, " in %s (%d %s parsed)\n", displayPath(where), d.Files, plural(d.Files, "file", "files"))
	if d.Capped {
		fmt.Fprintf(&b, "stopped after %d files; search a subdirectory with path to cover the rest\n", astMaxFiles)
	}
	writeSkipped(&b, d.Skipped)
	for _, w := range d.Warnings {
		fmt.Fprintf(&b, "note: %s\n", w)
	}
	return b.String()
}

// writeSkipped summarises skipped files by reason, naming the first few.
func writeSkipped(b *strings.Builder, skipped []ASTSkipped) {
	byReason := map[string][]string{}
	var reasons []string
	for _, s := range skipped {
		if _, ok := byReason[s.Reason]; !ok {
			reasons = append(reasons, s.Reason)
		}
		byReason[s.Reason] = append(byReason[s.Reason], s.Path)
	}
	for _, r := range reasons {
		paths := byReason[r]
		label := r
		if r == "too large" {
			label = fmt.Sprintf("over %d MB", astMaxFileBytes>>20)
		}
		list := strings.Join(paths[:min(len(paths), astMaxListed)], ", ")
		if len(paths) > astMaxListed {
			list += fmt.Sprintf(" and %d more", len(paths)-astMaxListed)
		}
		fmt.Fprintf(b, "skipped %d %s (%s): %s\n", len(paths), plural(len(paths), "file", "files"), label, list)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
