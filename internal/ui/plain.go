// Package ui renders a run's event stream for people and programs: a TUI
// on a terminal, one readable line per event elsewhere, or NDJSON with
// --json; and it asks the user to approve plans.
package ui

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/anvil-dev/anvil/internal/event"
	"github.com/anvil-dev/anvil/internal/shadow"
)

// Plain writes one readable line per event (a few for plans and
// summaries), for logs and pipes. Streaming text is not echoed piece by
// piece; each agent message is printed whole when it is complete.
type Plain struct {
	mu sync.Mutex
	w  io.Writer
}

// NewPlain returns a plain renderer writing to w.
func NewPlain(w io.Writer) *Plain { return &Plain{w: w} }

// Emit renders e.
func (p *Plain) Emit(e event.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.w
	switch e := e.(type) {
	case event.Session:
		fmt.Fprintf(w, "anvil: %s\n", e.Request)
		fmt.Fprintln(w, WorkspaceLine(e))
		if e.Replayed {
			fmt.Fprintln(w, "note: "+ReplayNote)
		}
	case event.Phase:
		if e.Detail != "" {
			fmt.Fprintf(w, "== %s: %s\n", e.Name, e.Detail)
		} else {
			fmt.Fprintf(w, "== %s\n", e.Name)
		}
	case event.Message:
		fmt.Fprintf(w, "%s: %s\n", e.Agent, OneLine(e.Text, 300))
	case event.ToolCall:
		fmt.Fprintf(w, "  → %s %s\n", e.Name, e.Summary)
	case event.ToolResult:
		status := "ok"
		if e.IsError {
			status = "error"
		}
		fmt.Fprintf(w, "  ← %s %s: %s\n", e.Name, status, OneLine(e.Preview, 160))
	case event.Plan:
		title := "Plan"
		if e.Revision > 0 {
			title = fmt.Sprintf("Plan (revision %d)", e.Revision)
		}
		fmt.Fprintf(w, "\n%s\n%s\n", title, strings.Repeat("─", len(title)))
		if e.Reason != "" {
			fmt.Fprintf(w, "Widened: %s.\n", e.Reason)
			for _, wd := range e.Widened {
				fmt.Fprintf(w, "  + %s: %s\n", wd.Path, wd.Why)
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n", e.Plan.Markdown())
	case event.Approval:
		how := ""
		if e.Auto {
			how = " (--yes)"
		}
		fmt.Fprintf(w, "approval: %s%s", e.Decision, how)
		if e.Feedback != "" {
			fmt.Fprintf(w, ": %s", e.Feedback)
		}
		fmt.Fprintln(w)
	case event.Shadow:
		fmt.Fprintln(w, ShadowLine(e))
		for i, d := range e.New {
			if i == 5 {
				fmt.Fprintf(w, "    ... %d more\n", len(e.New)-5)
				break
			}
			fmt.Fprintf(w, "    %s\n", d)
		}
	case event.Commit:
		fmt.Fprintln(w, CommitLine(e))
		fmt.Fprint(w, e.Diff)
	case event.Todo:
		done := 0
		for _, it := range e.Items {
			if it.Status == "done" {
				done++
			}
		}
		fmt.Fprintf(w, "todo %d/%d", done, len(e.Items))
		for i, it := range e.Items {
			if it.Status == "in_progress" {
				fmt.Fprintf(w, " · now: %d. %s", i+1, OneLine(it.Text, 80))
				break
			}
		}
		fmt.Fprintln(w)
	case event.Error:
		fmt.Fprintf(w, "error: %s\n", e.Message)
	case event.Retry:
		fmt.Fprintf(w, "%s: the model's answer broke off; asking again\n", e.Agent)
	case event.Compaction:
		fmt.Fprintln(w, CompactionText(e))
	case event.Done:
		fmt.Fprint(w, SummaryText(e))
	}
}

// ShadowLine is the one-line form of a validation cycle, shared by the
// renderers: "shadow 2/3 · validating src/db.ts", "shadow check ·
// rejected: 1 new error in src/auth.ts".
func ShadowLine(e event.Shadow) string {
	label := "shadow check"
	if e.Commit {
		label = fmt.Sprintf("shadow %d/%d", e.Attempt, e.MaxAttempts)
	}
	if e.Stage == "validating" {
		return fmt.Sprintf("%s · validating %s", label, strings.Join(e.Files, ", "))
	}
	verdict := e.Summary
	if r := e.Run; r != nil && r.Status != shadow.RunFailed { // a failure is the summary already
		verdict += " · tests " + r.Status
		if len(r.Preexisting) > 0 {
			verdict += fmt.Sprintf(" (%d failing before too)", len(r.Preexisting))
		}
	}
	if e.Commit && e.Verdict == "clean" {
		verdict += " → committing"
	}
	return fmt.Sprintf("%s · %s", label, verdict)
}

// SummaryText renders the end of a run.
func SummaryText(d event.Done) string {
	var b strings.Builder
	s := d.Summary
	status := "Done"
	if !d.Success {
		status = "Stopped"
	}
	fmt.Fprintf(&b, "\n%s: %s\n", status, s.Message)
	if len(s.FilesChanged) > 0 {
		fmt.Fprintf(&b, "  files changed: %s\n", strings.Join(s.FilesChanged, ", "))
	}
	if s.Attempts > 0 {
		fmt.Fprintf(&b, "  commit attempts: %d\n", s.Attempts)
	}
	if len(s.Preexisting) > 0 {
		fmt.Fprintf(&b, "  pre-existing errors left alone (%d):\n", len(s.Preexisting))
		for _, p := range s.Preexisting {
			fmt.Fprintf(&b, "    %s\n", p)
		}
	}
	if len(s.Diagnostics) > 0 {
		fmt.Fprintf(&b, "  why (%d):\n", len(s.Diagnostics))
		for _, p := range s.Diagnostics {
			fmt.Fprintf(&b, "    %s\n", p)
		}
	}
	if len(s.VerificationCriteria) > 0 {
		fmt.Fprintln(&b, "  verification criteria:")
		for _, v := range s.VerificationCriteria {
			fmt.Fprintf(&b, "    - %s\n", v)
		}
	}
	if s.Undo != "" {
		fmt.Fprintf(&b, "  undo with: %s\n", s.Undo)
	}
	return b.String()
}

// OneLine collapses the whitespace of s (newlines included) to single
// spaces. A result longer than n bytes is cut on a rune boundary before its
// nth byte and ends with "…".
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	// Cut on a rune boundary so a multi-byte character is never split.
	cut := n - 1
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// ReplayNote says what is and is not real in a replayed run.
const ReplayNote = "the model's turns are replayed from a script; the tools, language servers and file writes are real"

// WorkspaceLine describes a session: workspace, model and session directory.
func WorkspaceLine(e event.Session) string {
	return fmt.Sprintf("workspace %s · %s %s · session %s", e.Workspace, e.Provider, e.Model, e.Dir)
}

// CommitLine says which files a commit wrote, and its journal entry.
func CommitLine(e event.Commit) string {
	return fmt.Sprintf("committed %s (%s)", strings.Join(e.Files, ", "), e.Entry)
}

// CompactionText says, in a line, that an agent's conversation was
// compacted and what was kept.
func CompactionText(e event.Compaction) string {
	why := "past three quarters of the context window"
	if e.Why == "too_long" {
		why = "the provider found it too long"
	}
	s := fmt.Sprintf("%s: conversation compacted (%s): about %d → %d of %d tokens", e.Agent, why, e.TokensBefore, e.TokensAfter, e.Window)
	if e.Shrunk > 0 {
		s += fmt.Sprintf("; %d old tool results cut to a line", e.Shrunk)
	}
	if e.Summarized > 0 {
		s += fmt.Sprintf("; %d older messages summarized", e.Summarized)
	}
	return s + "; kept as they were: " + strings.Join(e.Kept, ", ")
}
