package shadow

import (
	"fmt"
	"strings"
	"time"
)

// Verdict is the outcome of validating a change set.
type Verdict string

const (
	// Clean: every file was checked and the change introduces no error.
	Clean Verdict = "clean"
	// Rejected: the change introduces at least one error.
	Rejected Verdict = "rejected"
	// Unverified: some file could not be checked (no server for its
	// language, a crash, a timeout) and nothing checked was rejected.
	// Never treated as clean.
	Unverified Verdict = "unverified"
)

// Diag is a diagnostic in the form Anvil reports: a workspace-relative path
// and 1-based line and byte column.
type Diag struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Source   string `json:"source"`
	Message  string `json:"message"`
	// LineText is the source line the diagnostic points at, for showing the
	// model and the user what is wrong without another read.
	LineText string `json:"line_text,omitempty"`
	// Outside, set for a file the project's own checks leave out (tests
	// outside pyright's include, examples no tsconfig.json includes), says
	// which configuration does. Such a file is checked when it imports a
	// changed file itself, and its new errors still block.
	Outside string `json:"outside_project_checks,omitempty"`
}

func (d Diag) String() string {
	code := ""
	if d.Code != "" {
		code = " [" + d.Code + "]"
	}
	return fmt.Sprintf("%s:%d:%d: %s%s: %s", d.Path, d.Line, d.Column, d.Severity, code, d.Message)
}

// ServerInfo names a server that took part in a validation.
type ServerInfo struct {
	Language string `json:"language"`
	Name     string `json:"name"`
	Version  string `json:"version"`
	// Via says how the files were checked: by the server file by file,
	// or by the project's batch checker over a shadow tree.
	Via string `json:"via,omitempty"`
	// BaselinesReused counts the files whose diagnostics before the change
	// were already known (the disk unchanged since the server was asked):
	// the server was asked about the change alone there.
	BaselinesReused int `json:"baselines_reused,omitempty"`
}

// Skipped is a file that was not checked, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Result is what a validation found.
type Result struct {
	Verdict Verdict `json:"verdict"`
	// New errors are those the change introduces; Resolved ones it removes;
	// Preexisting ones were there before and still are (reported, never
	// blocking).
	New         []Diag `json:"new"`
	Resolved    []Diag `json:"resolved"`
	Preexisting []Diag `json:"preexisting"`
	// CheckedFiles are the files whose state after the change a server
	// reported on: the change set's files and the dependants.
	CheckedFiles []string `json:"checked_files"`
	// Unverified lists files that should have been checked but could not
	// be; their presence makes a verdict Unverified.
	Unverified []Skipped `json:"unverified,omitempty"`
	// NotCode lists changed files no language server applies to
	// (documentation, data); they do not affect the verdict.
	NotCode []Skipped `json:"not_code,omitempty"`
	// Notes carry what else the user should know (dependants capped...).
	Notes []string `json:"notes,omitempty"`
	// DependantsLeft: the check's scope left files that depend on the
	// change to a later, complete check (Scope.ChangedOnly,
	// Scope.DependantsWithin); the notes say which and why.
	DependantsLeft bool         `json:"dependants_left,omitempty"`
	Servers        []ServerInfo `json:"servers"`
	// DiskState names the state of the workspace's files the verdict
	// judged (the snapshot's fingerprint: every file's path, size and
	// modification time, and the installed dependencies), taken when the
	// check was asked; the change is judged over that state and no other.
	DiskState string `json:"disk_state,omitempty"`
	// Run is the run stage's report, when the change set was also built
	// and tested in a shadow tree.
	Run     *RunReport    `json:"run,omitempty"`
	Elapsed time.Duration `json:"-"`
	// ElapsedMS is Elapsed in milliseconds, for JSON.
	ElapsedMS int64 `json:"elapsed_ms"`
}

// Run stage statuses.
const (
	RunPassed = "passed" // tests ran, and no failure is the change's
	RunFailed = "failed" // the change makes a build or a test fail
	// RunUnverified: the stage ran but its results are no evidence either
	// way (no test ran; the unchanged tree already fails and the command
	// gives no per-test results; the workspace changed under the run).
	RunUnverified = "unverified"
	RunError      = "error"   // the stage could not run (no shadow tree, timeout): unverified
	RunSkipped    = "skipped" // nothing to run for this project: unverified when asked for
)

// RunReport is what the run stage found: the project built and its
// affected tests run in a shadow tree with the change, beside the same on
// the unchanged tree.
type RunReport struct {
	Command string `json:"command"`
	Status  string `json:"status"`
	// Failed are the tests (or "build") that pass without the change and
	// fail with it, twice: these reject the change.
	Failed []string `json:"failed,omitempty"`
	// Flaky failed once with the change and passed when re-run.
	Flaky []string `json:"flaky,omitempty"`
	// Preexisting failed on the unchanged tree too; they do not block.
	Preexisting []string `json:"preexisting,omitempty"`
	// Output is the failures' own output (the assertion and where),
	// trimmed for a reader.
	Output string `json:"output,omitempty"`
	// Reason says why the stage was skipped, could not run, or is
	// unverified.
	Reason string `json:"reason,omitempty"`
	// Tests counts the tests that ran with the change; -1 when the
	// command cannot tell (a configured command without a report).
	Tests int `json:"tests"`
	// Note says what the stage selected to run, when it narrowed it.
	Note string `json:"note,omitempty"`
	// Over says what tree the run's shadow lay over, and how it was kept
	// still.
	Over      string `json:"over,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms"`
}

// NewErrorFiles returns the files that have new errors, in order.
func (r *Result) NewErrorFiles() []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range r.New {
		if !seen[d.Path] {
			seen[d.Path] = true
			out = append(out, d.Path)
		}
	}
	return out
}

// Summary is a one-line account of the result.
func (r *Result) Summary() string {
	switch r.Verdict {
	case Clean:
		if len(r.CheckedFiles) == 0 && len(r.Servers) > 0 {
			// A checker over the whole project (a deletion nothing
			// imports) found no file with an error.
			var by []string
			for _, s := range r.Servers {
				by = append(by, s.Name)
			}
			return "clean: no new errors; the change's projects were checked whole (" + strings.Join(by, ", ") + ") and no file has an error"
		}
		if len(r.CheckedFiles) == 0 {
			return fmt.Sprintf("clean: no code or configuration changed (%d %s not checked: %s)",
				len(r.NotCode), plural(len(r.NotCode), "file", "files"), joinShort(notCodePaths(r.NotCode)))
		}
		s := fmt.Sprintf("clean: no new errors in %d checked files", len(r.CheckedFiles))
		if len(r.Preexisting) > 0 {
			s += fmt.Sprintf(" (%d pre-existing left as they were)", len(r.Preexisting))
		}
		return s
	case Rejected:
		if len(r.New) == 0 && r.Run != nil && r.Run.Status == RunFailed {
			return fmt.Sprintf("rejected: the change makes %d %s fail (%s): %s", len(r.Run.Failed), plural(len(r.Run.Failed), "test", "tests"), r.Run.Command, joinShort(r.Run.Failed))
		}
		files := r.NewErrorFiles()
		return fmt.Sprintf("rejected: %d new %s in %s", len(r.New), plural(len(r.New), "error", "errors"), joinShort(files))
	default:
		if len(r.Unverified) > 0 {
			return fmt.Sprintf("unverified: %s: %s", r.Unverified[0].Path, r.Unverified[0].Reason)
		}
		return "unverified"
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func joinShort(items []string) string {
	switch {
	case len(items) == 0:
		return ""
	case len(items) <= 3:
		s := items[0]
		for _, it := range items[1:] {
			s += ", " + it
		}
		return s
	default:
		return fmt.Sprintf("%s, %s and %d more files", items[0], items[1], len(items)-2)
	}
}

func notCodePaths(s []Skipped) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = x.Path
	}
	return out
}

// RestoreElapsed sets Elapsed from ElapsedMS, for a result read from JSON.
func (r *Result) RestoreElapsed() {
	r.Elapsed = time.Duration(r.ElapsedMS) * time.Millisecond
}
