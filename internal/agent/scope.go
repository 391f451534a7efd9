package agent

import (
	"fmt"
	"sort"
	"strings"

	"github.com/anvil-dev/anvil/internal/shadow"
)

// Breakage outside the plan: the gate checks every dependant of a change,
// but the Executor may write only the plan's files. When the new errors
// are in files it may not touch, retrying cannot help; the plan must
// widen, which takes the Planner and the user's approval again.

// outsideFile is a file outside the plan with errors the change set
// introduces.
type outsideFile struct {
	Path  string
	Diags []shadow.Diag
}

// outsidePlan returns the files of res's new errors that allowed refuses,
// in path order.
func outsidePlan(res *shadow.Result, allowed func(string) bool) []outsideFile {
	if res == nil {
		return nil
	}
	by := map[string][]shadow.Diag{}
	for _, d := range res.New {
		if !allowed(d.Path) {
			by[d.Path] = append(by[d.Path], d)
		}
	}
	out := make([]outsideFile, 0, len(by))
	for p, ds := range by {
		out = append(out, outsideFile{Path: p, Diags: ds})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// summary is one line per file: "src/report.ts: 2 new errors (TS2304 at
// line 3: Cannot find name 'formatUser'.)".
func (f outsideFile) summary() string {
	d := f.Diags[0]
	code := ""
	if d.Code != "" {
		code = d.Code + " "
	}
	return fmt.Sprintf("%s: %d new %s (first: %sat line %d: %s)", f.Path, len(f.Diags), plural(len(f.Diags), "error", "errors"), code, d.Line, d.Message)
}

func outsidePaths(files []outsideFile) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

// outsideAdvice tells the Executor what it can do about errors outside the
// plan, for the answer to a staging or a commit.
func outsideAdvice(files []outsideFile) string {
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nThe change breaks %d %s outside the plan, which you cannot edit:\n", len(files), plural(len(files), "file", "files"))
	for _, f := range files {
		fmt.Fprintf(&b, "  %s\n", f.summary())
	}
	b.WriteString("If the change is what the plan intends and those files must change with it, call request_replan with the reason: the plan is widened (with the user's approval) and your staged edits are kept. Otherwise change your edits so that those files keep compiling.\n")
	return b.String()
}
