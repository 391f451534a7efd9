package shadow

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/servers"
)

// A checker that stops reporting part-way through a file says nothing of
// what comes after, on either side of a change: with the same errors
// before the point where it stopped, an error the change adds after it
// is never reported, and the pairing finds nothing new. clang stops at
// its limit of 20 errors (clangd 14 too: "too many errors emitted,
// stopping now", code fatal_too_many_errors), gcc and clang at a fatal
// error (a missing include) and gcc under -fmax-errors or
// -Wfatal-errors. Without a new error, such an answer leaves the change
// unverified (judge).

// stoppedCode marks, in a compile run's answer, the error after which the
// compiler compiled nothing more of its translation unit (parseCompilerOutput).
var stoppedCode = json.RawMessage(`"fatal"`)

// stopCodes are the diagnostic codes that say the checker stopped there.
var stopCodes = map[string]bool{
	"fatal":                 true, // stoppedCode
	"fatal_too_many_errors": true, // clangd, at clang's error limit
}

// stoppedReporting says where a checker stopped reporting in cr, either
// side of the change ("" when it reported on every file to the end).
func stoppedReporting(root interface{ Rel(string) (string, error) }, cr *servers.CheckResult) string {
	for _, side := range []map[string][]lsp.Diagnostic{cr.Before, cr.After} {
		for _, abs := range slices.Sorted(maps.Keys(side)) {
			for _, d := range side[abs] {
				if !stopCodes[d.CodeString()] {
					continue
				}
				rel, err := root.Rel(abs)
				if err != nil {
					rel = abs
				}
				return fmt.Sprintf("stopped reporting errors in %s (%s): an error after that point would not be reported, before or after the change", rel, d.Message)
			}
		}
	}
	return ""
}
