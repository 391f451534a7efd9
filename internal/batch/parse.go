package batch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/anvil-dev/anvil/internal/diagformat"
	"github.com/anvil-dev/anvil/internal/lsp"
)

// ParsePyright reads `pyright --outputjson`. pyright exits 0 without
// errors and 1 with them; 2 and more mean it could not check (a fatal
// error, a configuration it refuses).
func ParsePyright(exit int, out []byte) (map[string][]lsp.Diagnostic, error) {
	if exit > 1 {
		return nil, fmt.Errorf("pyright exited %d: %s", exit, diagformat.Tail(out))
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
		return nil, fmt.Errorf("pyright's report does not read: %v: %s", err, diagformat.Tail(out))
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
		f := ""
		if d.File != "" {
			// An error of no file (pyright's own: a configuration it
			// cannot read) stays under "", where the batch layer and the
			// validator look for them; Clean would make it ".".
			f = filepath.Clean(d.File)
		}
		diags[f] = append(diags[f], lsp.Diagnostic{Range: lsp.Range{Start: d.Range.Start, End: d.Range.End}, Severity: sev, Code: code, Source: "Pyright", Message: d.Message})
	}
	return diags, nil
}
