package replay

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// Report is what a replay found: every case, the commits and files it
// did not replay, and the totals.
type Report struct {
	Workspace string `json:"workspace"`
	Cases     []Case `json:"cases"`
	Skipped   []Skip `json:"skipped,omitempty"`
	Totals    Totals `json:"totals"`
}

// Case is one change set replayed: a commit whole, or one of its files.
type Case struct {
	Commit  string `json:"commit"`
	Subject string `json:"subject"`
	// Scope is "whole" or the one file applied (workspace-relative).
	Scope   string  `json:"scope"`
	Gate    Verdict `json:"gate"`
	Checker Verdict `json:"checker"`
	GateMS  int64   `json:"gate_ms"`
	// CheckerMS is the checker's time for the case: its full run over
	// the changed tree, and over the unchanged one for a commit's first
	// case.
	CheckerMS int64 `json:"checker_ms"`
	// The errors each side found new (the first few), and why a side
	// has no verdict.
	GateErrors    []string `json:"gate_errors,omitempty"`
	GateReason    string   `json:"gate_reason,omitempty"`
	CheckerErrors []string `json:"checker_errors,omitempty"`
	CheckerReason string   `json:"checker_reason,omitempty"`
}

// Skip is a commit, or one file of it, not replayed, and why.
type Skip struct {
	Commit  string `json:"commit"`
	Subject string `json:"subject"`
	Scope   string `json:"scope,omitempty"`
	Reason  string `json:"reason"`
}

// Totals hold the gate's verdicts to the checker's. A case is judged
// when the checker has a verdict; the gate agrees when it has the same.
type Totals struct {
	Cases  int `json:"cases"`
	Judged int `json:"judged"`
	// Agreement is the judged cases where the gate's verdict is the
	// checker's.
	Agreement int `json:"agreement"`
	// Breaking are the cases the checker rejects; Caught those of them
	// the gate rejects too.
	Breaking int `json:"breaking"`
	Caught   int `json:"caught"`
	// FalseCleans: the gate passed what the checker rejects.
	// FalseRejects: the gate rejected what the checker passes.
	FalseCleans  int `json:"false_cleans"`
	FalseRejects int `json:"false_rejects"`
	// Unverified: the gate had no verdict; CheckerUnverified: the
	// checker had none, so the case is not judged.
	Unverified        int `json:"unverified"`
	CheckerUnverified int `json:"checker_unverified"`
	// The gate's and the checker's time per case, in milliseconds.
	GateP50MS    int64 `json:"gate_p50_ms"`
	GateP90MS    int64 `json:"gate_p90_ms"`
	CheckerP50MS int64 `json:"checker_p50_ms"`
	CheckerP90MS int64 `json:"checker_p90_ms"`
}

// total computes the totals from the cases.
func (r *Report) total() {
	t := Totals{Cases: len(r.Cases)}
	var gate, checker []int64
	for _, k := range r.Cases {
		gate, checker = append(gate, k.GateMS), append(checker, k.CheckerMS)
		if k.Gate == Unverified {
			t.Unverified++
		}
		if k.Checker == Unverified {
			t.CheckerUnverified++
			continue
		}
		t.Judged++
		if k.Checker == Rejected {
			t.Breaking++
		}
		switch {
		case k.Gate == k.Checker:
			t.Agreement++
			if k.Gate == Rejected {
				t.Caught++
			}
		case k.Gate == Clean && k.Checker == Rejected:
			t.FalseCleans++
		case k.Gate == Rejected && k.Checker == Clean:
			t.FalseRejects++
		}
	}
	t.GateP50MS, t.GateP90MS = percentile(gate, 50), percentile(gate, 90)
	t.CheckerP50MS, t.CheckerP90MS = percentile(checker, 50), percentile(checker, 90)
	r.Totals = t
}

// percentile is the nearest-rank p-th percentile of ms (0 for none).
func percentile(ms []int64, p int) int64 {
	if len(ms) == 0 {
		return 0
	}
	s := slices.Clone(ms)
	slices.Sort(s)
	i := (p*len(s)+99)/100 - 1
	return s[max(i, 0)]
}

// Print writes the report for a person: the totals, then every case on
// which the two sides differ and why a side had no verdict.
func (r *Report) Print(w io.Writer) {
	t := r.Totals
	commits := map[string]bool{}
	for _, k := range r.Cases {
		commits[k.Commit] = true
	}
	fmt.Fprintf(w, "Replayed %d %s of %s: %d %s (each commit whole, and file by file), held to the project's batch checker.\n",
		len(commits), plural(len(commits), "commit", "commits"), r.Workspace, t.Cases, plural(t.Cases, "case", "cases"))
	if t.Judged > 0 {
		fmt.Fprintf(w, "  agreement       %d of %d judged (%.1f%%)\n", t.Agreement, t.Judged, 100*float64(t.Agreement)/float64(t.Judged))
	} else {
		fmt.Fprintf(w, "  agreement       no case judged: the checker had no verdict\n")
	}
	fmt.Fprintf(w, "  breaking caught %d of %d\n", t.Caught, t.Breaking)
	fmt.Fprintf(w, "  false cleans    %d\n", t.FalseCleans)
	fmt.Fprintf(w, "  false rejects   %d\n", t.FalseRejects)
	fmt.Fprintf(w, "  unverified      %d by the gate, %d by the checker (not judged)\n", t.Unverified, t.CheckerUnverified)
	fmt.Fprintf(w, "  gate            p50 %s, p90 %s\n", ms(t.GateP50MS), ms(t.GateP90MS))
	fmt.Fprintf(w, "  checker         p50 %s, p90 %s\n", ms(t.CheckerP50MS), ms(t.CheckerP90MS))
	for _, k := range r.Cases {
		if k.Gate == k.Checker && k.Gate != Unverified {
			continue
		}
		fmt.Fprintf(w, "%.12s %s (%s): gate %s, checker %s\n", k.Commit, k.Scope, k.Subject, k.Gate, k.Checker)
		for _, e := range k.GateErrors {
			fmt.Fprintf(w, "    gate: %s\n", e)
		}
		if k.GateReason != "" {
			fmt.Fprintf(w, "    gate: %s\n", k.GateReason)
		}
		for _, e := range k.CheckerErrors {
			fmt.Fprintf(w, "    checker: %s\n", e)
		}
		if k.CheckerReason != "" {
			fmt.Fprintf(w, "    checker: %s\n", k.CheckerReason)
		}
	}
	for _, s := range r.Skipped {
		scope := ""
		if s.Scope != "" {
			scope = " " + s.Scope
		}
		fmt.Fprintf(w, "skipped %.12s%s (%s): %s\n", s.Commit, scope, s.Subject, s.Reason)
	}
}

func ms(v int64) string { return (time.Duration(v) * time.Millisecond).String() }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
