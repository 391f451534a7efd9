package shadow

import (
	"fmt"
	"io"
	"strings"
)

// maxListed caps each list of diagnostics in a report; the counts are
// always complete.
const maxListed = 20

// Report writes a readable account of r: the verdict, each new error with
// its source line (what the model needs to fix it without another read),
// then what was pre-existing or resolved, what could not be checked, and
// which servers checked what.
func (r *Result) Report(w io.Writer) {
	fmt.Fprintln(w, r.Summary())
	section := func(title string, ds []Diag, withSource bool) {
		if len(ds) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s (%d):\n", title, len(ds))
		for i, d := range ds {
			if i == maxListed {
				fmt.Fprintf(w, "  ... and %d more\n", len(ds)-maxListed)
				break
			}
			fmt.Fprintf(w, "  %s\n", d)
			if withSource && strings.TrimSpace(d.LineText) != "" {
				fmt.Fprintf(w, "    %5d | %s\n", d.Line, strings.TrimRight(d.LineText, " \t"))
			}
			if withSource && d.Outside != "" {
				fmt.Fprintf(w, "          (outside the project's own checks: %s)\n", d.Outside)
			}
		}
	}
	section("New errors", r.New, true)
	section("Pre-existing errors (not caused by this change; not blocking)", r.Preexisting, false)
	section("Errors this change resolves", r.Resolved, false)
	if len(r.Unverified) > 0 {
		fmt.Fprintf(w, "\nNot verified (%d):\n", len(r.Unverified))
		for _, u := range r.Unverified {
			fmt.Fprintf(w, "  %s: %s\n", u.Path, u.Reason)
		}
	}
	if len(r.NotCode) > 0 {
		fmt.Fprintf(w, "\nNot code, not checked: ")
		for i, s := range r.NotCode {
			if i > 0 {
				fmt.Fprint(w, ", ")
			}
			fmt.Fprint(w, s.Path)
		}
		fmt.Fprintln(w)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\nNote: %s\n", n)
	}
	if r.Run != nil {
		r.Run.Report(w)
	}
	if len(r.Servers) > 0 {
		var names []string
		for _, s := range r.Servers {
			name := s.Name
			if s.Version != "" {
				name += " " + s.Version
			}
			if s.Via != "" {
				name += " (" + s.Via + ")"
			}
			names = append(names, name)
		}
		fmt.Fprintf(w, "\nChecked %d %s with %s in %d ms\n", len(r.CheckedFiles), plural(len(r.CheckedFiles), "file", "files"), strings.Join(names, ", "), r.ElapsedMS)
	}
}

// Report writes the run stage's part of a report.
func (rr *RunReport) Report(w io.Writer) {
	fmt.Fprintf(w, "\nRun stage (%s): %s", rr.Command, rr.Status)
	if rr.Reason != "" {
		fmt.Fprintf(w, ": %s", rr.Reason)
	}
	if rr.Tests > 0 {
		fmt.Fprintf(w, " (%d %s ran)", rr.Tests, plural(rr.Tests, "test", "tests"))
	}
	fmt.Fprintf(w, " in %d ms\n", rr.ElapsedMS)
	if rr.Note != "" {
		fmt.Fprintf(w, "  %s\n", rr.Note)
	}
	list := func(title string, names []string) {
		if len(names) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", title, strings.Join(names, ", "))
		}
	}
	list("failing with the change", rr.Failed)
	list("failed once, passed when re-run (not blocking)", rr.Flaky)
	list("failing before the change too (not blocking)", rr.Preexisting)
	if rr.Output != "" {
		for line := range strings.Lines(strings.TrimRight(rr.Output, "\n") + "\n") {
			fmt.Fprintf(w, "    %s", line)
		}
	}
}

// String returns [Result.Report] as text.
func (r *Result) String() string {
	var b strings.Builder
	r.Report(&b)
	return b.String()
}

// ModelReport writes r for a model working through a change: the verdict
// and every new error with its source line (up to maxListed), then only a
// count of the pre-existing errors, listed for the files the model has not
// been shown them for yet (shown records those; nil lists none), and the
// errors the change resolves, all re-checked. What a model needs to act
// on comes first; what it cannot act on is counted, not repeated.
func (r *Result) ModelReport(w io.Writer, shown map[string]bool) {
	fmt.Fprintln(w, r.Summary())
	if len(r.New) > 0 {
		fmt.Fprintf(w, "\nNew errors (%d):\n", len(r.New))
		for i, d := range r.New {
			if i == maxListed {
				fmt.Fprintf(w, "  ... and %d more\n", len(r.New)-maxListed)
				break
			}
			fmt.Fprintf(w, "  %s\n", d)
			if strings.TrimSpace(d.LineText) != "" {
				fmt.Fprintf(w, "    %5d | %s\n", d.Line, strings.TrimRight(d.LineText, " \t"))
			}
			if d.Outside != "" {
				fmt.Fprintf(w, "          (outside the project's own checks: %s)\n", d.Outside)
			}
		}
	}
	if len(r.Preexisting) > 0 {
		byFile := map[string][]Diag{}
		var files []string
		for _, d := range r.Preexisting {
			if byFile[d.Path] == nil {
				files = append(files, d.Path)
			}
			byFile[d.Path] = append(byFile[d.Path], d)
		}
		fmt.Fprintf(w, "\nPre-existing errors: %d in %d %s (there before this change; not blocking, leave them unless the plan says otherwise).\n",
			len(r.Preexisting), len(files), plural(len(files), "file", "files"))
		listed := 0
		for _, f := range files {
			if shown == nil || shown[f] {
				continue
			}
			shown[f] = true
			for _, d := range byFile[f] {
				if listed == maxListed {
					break
				}
				fmt.Fprintf(w, "  %s\n", d)
				listed++
			}
		}
		if listed < len(r.Preexisting) {
			fmt.Fprintf(w, "  (%d not listed here: shown before, or past the first %d; the diagnostics tool lists a file's errors)\n", len(r.Preexisting)-listed, maxListed)
		}
	}
	if len(r.Resolved) > 0 {
		fmt.Fprintf(w, "\nErrors this change resolves (%d, re-checked):\n", len(r.Resolved))
		for i, d := range r.Resolved {
			if i == 5 {
				fmt.Fprintf(w, "  ... and %d more\n", len(r.Resolved)-5)
				break
			}
			fmt.Fprintf(w, "  %s\n", d)
		}
	}
	for _, u := range r.Unverified {
		fmt.Fprintf(w, "\nNot verified: %s: %s\n", u.Path, u.Reason)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\nNote: %s\n", n)
	}
	if r.Run != nil {
		r.Run.Report(w)
	}
}
