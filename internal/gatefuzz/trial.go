package gatefuzz

import (
	"maps"
	"slices"
	"strings"
)

// Files is a project's files by slash path relative to its folder.
type Files map[string]string

// Edit is one change to a project: each path's new content, or nil to
// delete it. A rename is a deletion and a creation.
type Edit map[string]*string

// Paths returns the edit's paths, sorted.
func (e Edit) Paths() []string { return slices.Sorted(maps.Keys(e)) }

// Apply returns files with the edit made.
func (e Edit) Apply(files Files) Files {
	out := maps.Clone(files)
	for p, c := range e {
		if c == nil {
			delete(out, p)
		} else {
			out[p] = *c
		}
	}
	return out
}

// Trial is one generated project and one edit to it.
type Trial struct {
	// Name is the trial's folder in a shared workspace ("t007").
	Name string
	Lang string
	// Seed and Index generated it: the same language, seed and index
	// give the same trial.
	Seed    uint64
	Index   int
	Project Files
	Edit    Edit
	// Tags name the constructs the project and the edit use
	// ("ts/type-only-export", "py/string-annotation"): a false clean is
	// laid at the door of the constructs it involves.
	Tags []string
}

// Class is a trial's outcome.
type Class string

const (
	// Agree: the gate and the checker agree.
	Agree Class = "agree"
	// FalseClean: the gate says clean and the checker finds a new error.
	FalseClean Class = "false clean"
	// FalseReject: the gate rejects a change the checker finds no new
	// error in.
	FalseReject Class = "false reject"
	// Unverified: the gate gave no verdict, or the checker could not run.
	Unverified Class = "unverified"
)

// Judgement is what the gate says of one edit.
type Judgement struct {
	// Verdict is "clean", "rejected" or "unverified".
	Verdict string
	// New are the errors the gate says the edit introduces.
	New []string
	// Why is the first reason of an unverified verdict.
	Why string
}

// Outcome is one trial judged.
type Outcome struct {
	Trial *Trial
	Class Class
	Gate  Judgement
	// Truth are the errors the batch checker finds that the edit
	// introduces ("file: code: message", paths relative to the project).
	Truth []string
	// Cause says why a trial is unverified, or which known open cause a
	// false clean is laid at ("" when none applies).
	Cause string
	// Compiler is where a second compiler's truth differs from the
	// checker's (nil when they agree, or no second compiler ran).
	Compiler *Disagreement
}

// classify compares the gate's judgement with the checker's truth.
func classify(j Judgement, truth []string) (Class, string) {
	switch j.Verdict {
	case "clean":
		if len(truth) > 0 {
			return FalseClean, ""
		}
		return Agree, ""
	case "rejected":
		if len(truth) == 0 {
			return FalseReject, ""
		}
		return Agree, ""
	default:
		return Unverified, "gate: " + cause(j.Why)
	}
}

// cause shortens a reason to its kind: the first clause, without the
// paths and numbers that make every trial's reason different.
func cause(why string) string {
	why, _, _ = strings.Cut(why, "\n")
	why, _, _ = strings.Cut(why, ": ")
	var b strings.Builder
	for _, w := range strings.Fields(why) {
		if strings.ContainsAny(w, "/0123456789") {
			w = "…"
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	s := b.String()
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}
