package shadow

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/servers"
)

// A checker that stops reporting part-way through a file says nothing of
// what comes after, on either side of a change: with the same errors
// before the point where it stopped, an error the change adds after it
// is never reported, and the pairing finds nothing new. clang stops at
// its limit of 20 errors (clangd 14 too: "too many errors emitted,
// stopping now", code fatal_too_many_errors), gcc and clang at a fatal
// error (a missing include) and gcc under -fmax-errors or
// -Wfatal-errors; gopls reports no type error in a file that does not
// parse, and pyright checks no function past its complexity limit.
// Without a new error, such an answer after the change leaves the change
// unverified (judge), where the stop can hide what the change did
// (stopCanHide: a gopls parse stop only in a package that is, or
// imports, a changed one).

// stopsReporting reports whether d says its checker reported no more
// from there on. (A compile run's stop is not a diagnostic's: it comes as
// CheckResult.Stopped, see parseCompilerOutput.)
func stopsReporting(d lsp.Diagnostic) bool {
	switch {
	case d.CodeString() == "fatal_too_many_errors": // clangd, at clang's error limit
		return true
	case d.Source == "syntax":
		// gopls reports no type error of a file with a parse error
		// (other files of its package keep theirs).
		return true
	case strings.HasPrefix(d.Message, "Code is too complex to analyze"):
		// pyright checks nothing in a function past its complexity
		// limit, and says so on the function's name: in English, as
		// pyright 1.1.414 localizes only by VSCODE_NLS_CONFIG, which
		// the policy's environment does not pass.
		return true
	}
	return false
}

// stoppedReporting says where a checker stopped reporting in cr's answer
// after the change ("" when it reported on every file to the end). Only
// that side can hide a new error: a stop before the change can only have
// an error it hid read as new once the change uncovers it (a fix of a
// syntax error, with a type error behind it), never a new one missed.
// matters says whether a stop in the file abs can hide an error the
// change adds there (see stopCanHide).
func stoppedReporting(root interface{ Rel(string) (string, error) }, cr *servers.CheckResult, matters func(abs string, d lsp.Diagnostic) bool) string {
	if cr.Stopped != "" {
		return "stopped reporting errors: " + cr.Stopped + ": an error the change adds after that point would not be reported"
	}
	for _, abs := range slices.Sorted(maps.Keys(cr.After)) {
		for _, d := range cr.After[abs] {
			if !stopsReporting(d) || !matters(abs, d) {
				continue
			}
			rel, err := root.Rel(abs)
			if err != nil {
				rel = abs
			}
			return fmt.Sprintf("stopped reporting errors in %s (%s): an error the change adds after that point would not be reported", rel, d.Message)
		}
	}
	return ""
}

// stopCanHide returns whether a stop in a file can hide an error the
// change adds there. gopls reports every file of the workspace, and its
// stop (a Go file that does not parse) hides that file's own type errors
// only: those a change can add are in the packages that are, or import,
// a changed package, which the Go files' import clauses say
// (reach.GoPackagesReaching). One file that does not parse anywhere in a
// module made every Go change unverified before (the gate fuzzer's
// errors on disk). Every other stop, and a gopls stop where the imports
// cannot tell (a GOWORK the servers are given, among others), can.
func (v *Validator) stopCanHide(g *group) func(abs string, d lsp.Diagnostic) bool {
	always := func(string, lsp.Diagnostic) bool { return true }
	if g.server == nil || !slices.Contains(g.server.Spec().Languages, "go") {
		return always
	}
	if p := v.opts.Policy; p == nil {
		return always
	} else if w := p.Getenv("GOWORK"); w != "" && w != "off" {
		return always
	}
	packages := sync.OnceValues(func() (map[string]bool, bool) {
		var changed []string
		for _, c := range g.changes {
			changed = append(changed, c.Path)
		}
		return reach.GoPackagesReaching(v.root.Dir(), changed)
	})
	return func(abs string, d lsp.Diagnostic) bool {
		if d.Source != "syntax" || !strings.HasSuffix(abs, ".go") {
			return true // go.mod's syntax errors are gopls's too
		}
		reaching, known := packages()
		rel, err := v.root.Rel(abs)
		if !known || err != nil {
			return true
		}
		return reaching[path.Dir(rel)]
	}
}
