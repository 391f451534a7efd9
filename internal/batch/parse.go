package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/anvil-dev/anvil/internal/lsp"
)

var (
	tscLocated = regexp.MustCompile(`^(.+)\((\d+),(\d+)\): (error|warning|message) TS(\d+): (.*)$`)
	tscGlobal  = regexp.MustCompile(`^(error|warning|message) TS(\d+): (.*)$`)
)

// parseTSC reads `tsc --pretty false` output run in dir (relative to
// root): one line per diagnostic, "file(line,col): error TSnnnn: text",
// its message chain on indented lines after it. Diagnostics without a
// file (a configuration's) are kept under "" . tsc exits 0 without
// errors, 1 or 2 with them; anything else, or errors it printed in no
// form read here, fails.
func parseTSC(root, dir string, exit int, out []byte) (map[string][]lsp.Diagnostic, error) {
	diags := map[string][]lsp.Diagnostic{}
	var last *lsp.Diagnostic
	var lastFile string
	unread := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	flush := func() {
		if last != nil {
			diags[lastFile] = append(diags[lastFile], *last)
			last = nil
		}
	}
	for sc.Scan() {
		line := sc.Text()
		if last != nil && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) {
			last.Message += "\n" + strings.TrimSpace(line)
			continue
		}
		flush()
		if m := tscLocated.FindStringSubmatch(line); m != nil {
			l, _ := strconv.Atoi(m[2])
			c, _ := strconv.Atoi(m[3])
			file := m[1]
			if !filepath.IsAbs(file) {
				file = filepath.Join(root, filepath.FromSlash(dir), file)
			}
			lastFile = filepath.Clean(file)
			last = &lsp.Diagnostic{Range: lsp.Range{Start: lsp.Position{Line: l - 1, Character: c - 1}, End: lsp.Position{Line: l - 1, Character: c - 1}},
				Severity: tscSeverity(m[4]), Code: json.RawMessage(m[5]), Source: "ts", Message: m[6]}
			continue
		}
		if m := tscGlobal.FindStringSubmatch(line); m != nil {
			lastFile = ""
			last = &lsp.Diagnostic{Severity: tscSeverity(m[1]), Code: json.RawMessage(m[2]), Source: "ts", Message: m[3]}
			continue
		}
		if strings.TrimSpace(line) != "" {
			unread++
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, err
	}
	switch {
	case exit == 0 && len(diags) == 0:
	case exit == 1 || exit == 2:
		if len(diags) == 0 {
			return nil, fmt.Errorf("tsc exited %d reporting no diagnostic it could read: %s", exit, tail(out))
		}
	default:
		return nil, fmt.Errorf("tsc exited %d: %s", exit, tail(out))
	}
	if unread > 0 && len(diags) == 0 {
		return nil, fmt.Errorf("tsc printed what is not a diagnostic: %s", tail(out))
	}
	return diags, nil
}

func tscSeverity(s string) lsp.DiagnosticSeverity {
	switch s {
	case "error":
		return lsp.SeverityError
	case "warning":
		return lsp.SeverityWarning
	}
	return lsp.SeverityInformation
}

// parsePyright reads `pyright --outputjson`. pyright exits 0 without
// errors and 1 with them; 2 and more mean it could not check (a fatal
// error, a configuration it refuses).
func parsePyright(exit int, out []byte) (map[string][]lsp.Diagnostic, error) {
	if exit > 1 {
		return nil, fmt.Errorf("pyright exited %d: %s", exit, tail(out))
	}
	// Warnings about the environment may come before the JSON.
	if i := bytes.IndexByte(out, '{'); i > 0 {
		out = out[i:]
	}
	var rep struct {
		Diagnostics []struct {
			File     string `json:"file"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
			Rule     string `json:"rule"`
			Range    struct {
				Start lsp.Position `json:"start"`
				End   lsp.Position `json:"end"`
			} `json:"range"`
		} `json:"generalDiagnostics"`
		Summary *struct {
			FilesAnalyzed int `json:"filesAnalyzed"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(out, &rep); err != nil || rep.Summary == nil {
		return nil, fmt.Errorf("pyright's report does not read: %v: %s", err, tail(out))
	}
	diags := map[string][]lsp.Diagnostic{}
	for _, d := range rep.Diagnostics {
		sev := lsp.SeverityInformation
		switch d.Severity {
		case "error":
			sev = lsp.SeverityError
		case "warning":
			sev = lsp.SeverityWarning
		}
		var code json.RawMessage
		if d.Rule != "" {
			code, _ = json.Marshal(d.Rule)
		}
		f := filepath.Clean(d.File)
		diags[f] = append(diags[f], lsp.Diagnostic{Range: lsp.Range{Start: d.Range.Start, End: d.Range.End}, Severity: sev, Code: code, Source: "Pyright", Message: d.Message})
	}
	return diags, nil
}

func tail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	return s
}
