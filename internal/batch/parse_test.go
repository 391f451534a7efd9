package batch

import (
	"testing"
)

func TestParsePyright(t *testing.T) {
	for _, tc := range []struct {
		name      string
		exit      int
		out       string
		wantErr   bool
		wantFiles map[string]int // file → diagnostics
	}{
		{"clean", 0, `{"generalDiagnostics": [], "summary": {"filesAnalyzed": 3}}`, false, map[string]int{}},
		{"an error in a file", 1, `{"generalDiagnostics": [{"file": "/w/a.py", "severity": "error", "message": "x", "rule": "reportX", "range": {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 3}}}], "summary": {"filesAnalyzed": 1}}`, false, map[string]int{"/w/a.py": 1}},
		// pyright's own error (no file) stays under "", where the batch
		// layer reads a run that did not check the project.
		{"an error of no file", 1, `{"generalDiagnostics": [{"file": "", "severity": "error", "message": "Config file could not be parsed"}], "summary": {"filesAnalyzed": 0}}`, false, map[string]int{"": 1}},
		{"warnings before the JSON", 0, "WARNING: there is a new pyright version\n{\"generalDiagnostics\": [], \"summary\": {\"filesAnalyzed\": 1}}", false, map[string]int{}},
		{"a fatal exit", 2, `{"generalDiagnostics": [], "summary": {"filesAnalyzed": 0}}`, true, nil},
		{"no summary: not a report", 0, `{"generalDiagnostics": []}`, true, nil},
		{"not JSON", 1, `Traceback`, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePyright(tc.exit, []byte(tc.out))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if len(got) != len(tc.wantFiles) {
				t.Errorf("files %v, want %v", got, tc.wantFiles)
			}
			for f, n := range tc.wantFiles {
				if len(got[f]) != n {
					t.Errorf("%q: %d diagnostics, want %d (%v)", f, len(got[f]), n, got)
				}
			}
		})
	}
}

// FuzzParsePyright: whatever pyright writes, a report is read whole or
// refused, never half-read into a panic.
func FuzzParsePyright(f *testing.F) {
	f.Add(0, []byte(`{"generalDiagnostics": [], "summary": {"filesAnalyzed": 3}}`))
	f.Add(1, []byte(`{"generalDiagnostics": [{"file": "", "severity": "error", "message": "m"}], "summary": {"filesAnalyzed": 0}}`))
	f.Add(1, []byte("noise {\"generalDiagnostics\": null, \"summary\": {}}"))
	f.Fuzz(func(t *testing.T, exit int, out []byte) {
		diags, err := ParsePyright(exit, out)
		if err != nil && diags != nil {
			t.Fatalf("an error with diagnostics: %v", err)
		}
		if exit > 1 && err == nil {
			t.Fatalf("exit %d read as a report", exit)
		}
	})
}
