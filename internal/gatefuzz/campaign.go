package gatefuzz

import (
	"context"
	"fmt"
	"github.com/anvil-dev/anvil/internal/batch"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Config is one campaign.
type Config struct {
	Lang   Language
	Trials int
	// Seed is the campaign's: trial i is generated from (Seed, i).
	Seed uint64
	// First is the first trial's number, to run again the trials of a
	// campaign from one on (0 when all).
	First int
	// Batch is how many trials share a workspace, a checker run and a
	// warm gate (40 when 0).
	Batch int
	// Dir is where the campaign's workspaces are made.
	Dir string
	// Open opens the gate on a workspace.
	Open OpenGate
	// Path names the front end Open asks through ("local", "daemon",
	// "hooks"), for the cases kept.
	Path string
	// Known are the constructs of false cleans still open, by tag, with
	// their cause: a false clean of a trial that uses one is counted as
	// known, not new.
	Known map[string]string
	// Cases, if set, is where disagreements are written as regression
	// cases, minimised: at most Minimise of each class (3 when 0).
	Cases    string
	Minimise int
	// Log receives a line per disagreement; nil discards.
	Log io.Writer
}

// Report is a campaign's outcomes.
type Report struct {
	Lang     string
	Seed     uint64
	Outcomes []*Outcome
	// Versus names the two compilers whose truths were compared ("" when
	// the language has no second compiler).
	Versus string
}

// Count returns how many outcomes are of class c.
func (r *Report) Count(c Class) int {
	n := 0
	for _, o := range r.Outcomes {
		if o.Class == c {
			n++
		}
	}
	return n
}

// Breaking counts the trials whose edit introduces an error by the
// checker: a campaign whose edits break nothing tests nothing.
func (r *Report) Breaking() int {
	n := 0
	for _, o := range r.Outcomes {
		if len(o.Truth) > 0 {
			n++
		}
	}
	return n
}

// Causes counts the outcomes of class c by cause.
func (r *Report) Causes(c Class) map[string]int {
	out := map[string]int{}
	for _, o := range r.Outcomes {
		if o.Class == c {
			out[o.Cause]++
		}
	}
	return out
}

// CompilerDisagreements counts the trials where the second compiler's
// truth differs from the checker's.
func (r *Report) CompilerDisagreements() int {
	n := 0
	for _, o := range r.Outcomes {
		if o.Compiler != nil {
			n++
		}
	}
	return n
}

// CompilerCauses counts the compiler disagreements by cause.
func (r *Report) CompilerCauses() map[string]int {
	out := map[string]int{}
	for _, o := range r.Outcomes {
		if o.Compiler != nil {
			out[o.Compiler.Cause]++
		}
	}
	return out
}

// CompilerLine is the line of the compiler disagreements, "" when no
// second compiler ran.
func (r *Report) CompilerLine() string {
	if r.Versus == "" {
		return ""
	}
	return fmt.Sprintf("fuzz: %d compiler disagreements (%s)", r.CompilerDisagreements(), r.Versus)
}

// Line is the campaign's summary line.
func (r *Report) Line() string {
	return fmt.Sprintf("fuzz: %d trials, %d false cleans, %d false rejects, %d unverified",
		len(r.Outcomes), r.Count(FalseClean), r.Count(FalseReject), r.Count(Unverified))
}

// Generate returns trial i of the campaign with seed.
func Generate(l Language, seed uint64, i int) *Trial {
	files, edit, tags := l.Generate(trialRand(seed, i), onDiskRound(i))
	return &Trial{Name: fmt.Sprintf("t%03d", i), Lang: l.Name(), Seed: seed, Index: i, Project: files, Edit: edit, Tags: tags}
}

// Run runs a campaign.
func Run(ctx context.Context, c Config) (*Report, error) {
	if c.Batch == 0 {
		c.Batch = 40
	}
	if c.Minimise == 0 {
		c.Minimise = 3
	}
	rep := &Report{Lang: c.Lang.Name(), Seed: c.Seed}
	if s := secondOf(c.Lang); s != nil {
		rep.Versus = s.Versus
	}
	kept := map[Class]int{}
	for start := c.First; start < c.First+c.Trials; start += c.Batch {
		var trials []*Trial
		for i := start; i < min(start+c.Batch, c.First+c.Trials); i++ {
			trials = append(trials, Generate(c.Lang, c.Seed, i))
		}
		dir := filepath.Join(c.Dir, fmt.Sprintf("round%04d", start/c.Batch))
		outs, err := Judge(ctx, c.Lang, c.Open, dir, trials)
		if err != nil {
			return rep, err
		}
		for _, o := range outs {
			if o.Class == FalseClean {
				o.Cause = knownCause(c.Known, o.Trial.Tags)
			}
			if o.Class != Agree && c.Log != nil {
				fmt.Fprintf(c.Log, "%s %s/%s (seed %d): %s[%s]; gate %s %v; checker %v\n", o.Class, o.Trial.Lang, o.Trial.Name, o.Trial.Seed, o.Cause, strings.Join(o.Trial.Tags, " "), o.Gate.Verdict, o.Gate.New, o.Truth)
				if o.Class == Unverified {
					// The cause is the reason's kind; the reason itself
					// is what tells a harness's fault from the gate's.
					fmt.Fprintf(c.Log, "  why: %s\n", strings.ReplaceAll(o.Gate.Why, "\n", " | "))
				}
			}
			if o.Compiler != nil && c.Log != nil {
				fmt.Fprintf(c.Log, "compiler disagreement %s/%s (seed %d): %s; first: %s\n", o.Trial.Lang, o.Trial.Name, o.Trial.Seed, o.Compiler.Cause, strings.ReplaceAll(o.Compiler.Error, "\n", " "))
			}
		}
		rep.Outcomes = append(rep.Outcomes, outs...)
		if c.Cases == "" {
			continue
		}
		for _, o := range outs {
			if (o.Class != FalseClean && o.Class != FalseReject) || kept[o.Class] >= c.Minimise {
				continue
			}
			kept[o.Class]++
			if err := keep(ctx, c, dir, o); err != nil {
				return rep, err
			}
		}
	}
	return rep, nil
}

// keep minimises a disagreement and writes it as a regression case.
func keep(ctx context.Context, c Config, dir string, o *Outcome) error {
	t, alone, err := Minimise(ctx, c.Lang, c.Open, filepath.Join(dir, "min-"+o.Trial.Name), o)
	if err != nil {
		return err
	}
	cs := &Case{Trial: t, Class: o.Class, Gate: o.Gate.Verdict + " " + strings.Join(o.Gate.New, "; "), Truth: o.Truth, Path: c.Path}
	if ts, ok := c.Lang.(TS); ok {
		cs.Pin = ts.Pin
	}
	if o.Class == FalseClean {
		cs.Open = strings.TrimSpace(strings.TrimPrefix(o.Cause, "known open: "))
		if cs.Open == "" {
			cs.Open = "new: not yet laid at a cause"
		}
	}
	if !alone {
		cs.Note = "reproduces only beside the other projects of its campaign round, not alone: not minimised"
	}
	p, err := WriteCase(c.Cases, cs)
	if err == nil && c.Log != nil {
		fmt.Fprintf(c.Log, "case %s: %d project files, %d changes\n", p, len(t.Project), len(t.Edit))
	}
	return err
}

// knownCause returns the cause of the first known open false clean whose
// tags ("a+b": all of them) the trial has.
func knownCause(known map[string]string, tags []string) string {
	for _, key := range slices.Sorted(maps.Keys(known)) {
		all := true
		for _, t := range strings.Split(key, "+") {
			all = all && slices.Contains(tags, t)
		}
		if all {
			return "known open: " + known[key] + " "
		}
	}
	return ""
}

// Judge lays the trials out side by side in a workspace under dir (each
// in the folder of its name), asks the batch checker once before and once
// after every edit (and the language's second compiler, if it has one),
// and the gate once per edit.
func Judge(ctx context.Context, l Language, open OpenGate, dir string, trials []*Trial) ([]*Outcome, error) {
	var names []string
	for _, t := range trials {
		names = append(names, t.Name)
	}
	shared := l.Shared(names)
	beforeDir, afterDir, gateDir := filepath.Join(dir, "before"), filepath.Join(dir, "after"), filepath.Join(dir, "gate")
	if err := layOut(beforeDir, shared, trials, false, false); err != nil {
		return nil, err
	}
	if err := layOut(afterDir, shared, trials, true, false); err != nil {
		return nil, err
	}
	if err := layOut(gateDir, shared, trials, false, true); err != nil {
		return nil, err
	}
	outs := make([]*Outcome, len(trials))
	for i, t := range trials {
		outs[i] = &Outcome{Trial: t}
	}
	before, berr := l.Errors(ctx, beforeDir, names)
	after, aerr := l.Errors(ctx, afterDir, names)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if berr == nil && aerr == nil {
		// Without the checker's truth there is nothing to compare with.
		if err := compareCompilers(ctx, l, [2]string{beforeDir, afterDir}, names, [2]map[string][]string{before, after}, outs); err != nil {
			return nil, err
		}
	}
	g, err := open(ctx, gateDir)
	if err != nil {
		return nil, fmt.Errorf("open the gate: %w", err)
	}
	defer g.Close()
	for i, t := range trials {
		o := outs[i]
		edit := Edit{}
		for p, c := range t.Edit {
			if c != nil {
				c = ptr(place(*c, gateDir, t.Name))
			}
			edit[t.Name+"/"+p] = c
		}
		j, err := g.Judge(ctx, edit)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			j = Judgement{Verdict: "unverified", Why: "gate error: " + err.Error()}
		}
		o.Gate = j
		if berr != nil || aerr != nil {
			o.Class, o.Cause = Unverified, "checker: "+cause(errors2(berr, aerr).Error())
			continue
		}
		o.Truth = batch.NewErrors(before[t.Name], after[t.Name])
		o.Class, o.Cause = classify(j, o.Truth)
	}
	return outs, nil
}

// layOut writes the trials side by side under d (each in the folder of
// its name) beside the shared files: before or after their edits, and
// with the files laid out for the gate only when forGate.
func layOut(d string, shared Files, trials []*Trial, after, forGate bool) error {
	files := maps.Clone(shared)
	for _, t := range trials {
		p := t.Project
		if after {
			p = t.Edit.Apply(p)
		}
		for rel, c := range p {
			if !forGate && gateOnly(rel) {
				continue
			}
			files[t.Name+"/"+rel] = place(c, d, t.Name)
		}
	}
	return writeFiles(d, files)
}

// GateOnlyPrefix starts the name of a file laid out where the gate judges
// and nowhere the truth is computed: a file a checker would stop at (one
// that does not parse, which nothing reads), so that the truth is the
// checker's answer without the stop, and a gate that took the stopped
// answer's silence for evidence is caught.
const GateOnlyPrefix = "gateonly_"

func gateOnly(rel string) bool { return strings.HasPrefix(path.Base(rel), GateOnlyPrefix) }

// place replaces the placeholders of a project's file: the workspace's
// folder and the project's.
func place(content, workspace, project string) string {
	return strings.NewReplacer(WorkspacePlaceholder, workspace, ProjectPlaceholder, project).Replace(content)
}

func errors2(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// writeFiles writes files under dir; a content "->target" is a symbolic
// link to target (a package npm links under node_modules).
func writeFiles(dir string, files Files) error {
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if target, ok := strings.CutPrefix(files[rel], "->"); ok {
			// A case file (txtar) ends its content with a newline.
			target = strings.TrimSuffix(target, "\n")
			if err := os.Symlink(filepath.FromSlash(target), p); err != nil {
				return err
			}
			continue
		}
		if err := os.WriteFile(p, []byte(files[rel]), 0o644); err != nil {
			return err
		}
	}
	return os.MkdirAll(dir, 0o755)
}
