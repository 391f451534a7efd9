package gatefuzz

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
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
	// Batch is how many trials share a workspace, a checker run and a
	// warm gate (40 when 0).
	Batch int
	// Dir is where the campaign's workspaces are made.
	Dir string
	// Open opens the gate on a workspace.
	Open OpenGate
	// Known are the constructs of false cleans still open, by tag, with
	// their cause: a false clean of a trial that uses one is counted as
	// known, not new.
	Known map[string]string
	// Log receives a line per disagreement; nil discards.
	Log io.Writer
}

// Report is a campaign's outcomes.
type Report struct {
	Lang     string
	Seed     uint64
	Outcomes []*Outcome
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

// Line is the campaign's summary line.
func (r *Report) Line() string {
	return fmt.Sprintf("fuzz: %d trials, %d false cleans, %d false rejects, %d unverified",
		len(r.Outcomes), r.Count(FalseClean), r.Count(FalseReject), r.Count(Unverified))
}

// Generate returns trial i of the campaign with seed.
func Generate(l Language, seed uint64, i int) *Trial {
	files, edit, tags := l.Generate(trialRand(seed, i))
	return &Trial{Name: fmt.Sprintf("t%03d", i), Lang: l.Name(), Seed: seed, Index: i, Project: files, Edit: edit, Tags: tags}
}

// Run runs a campaign.
func Run(ctx context.Context, c Config) (*Report, error) {
	if c.Batch == 0 {
		c.Batch = 40
	}
	rep := &Report{Lang: c.Lang.Name(), Seed: c.Seed}
	for start := 0; start < c.Trials; start += c.Batch {
		var trials []*Trial
		for i := start; i < min(start+c.Batch, c.Trials); i++ {
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
			}
		}
		rep.Outcomes = append(rep.Outcomes, outs...)
	}
	return rep, nil
}

func knownCause(known map[string]string, tags []string) string {
	for _, t := range tags {
		if c, ok := known[t]; ok {
			return "known open: " + c + " "
		}
	}
	return ""
}

// Judge lays the trials out side by side in a workspace under dir (each
// in the folder of its name), asks the batch checker once before and once
// after every edit, and the gate once per edit.
func Judge(ctx context.Context, l Language, open OpenGate, dir string, trials []*Trial) ([]*Outcome, error) {
	var names []string
	for _, t := range trials {
		names = append(names, t.Name)
	}
	shared := l.Shared(names)
	layout := func(sub string, after bool) (string, error) {
		d := filepath.Join(dir, sub)
		files := maps.Clone(shared)
		for _, t := range trials {
			p := t.Project
			if after {
				p = t.Edit.Apply(p)
			}
			for rel, c := range p {
				files[t.Name+"/"+rel] = c
			}
		}
		return d, writeFiles(d, files)
	}
	beforeDir, err := layout("before", false)
	if err != nil {
		return nil, err
	}
	afterDir, err := layout("after", true)
	if err != nil {
		return nil, err
	}
	gateDir, err := layout("gate", false)
	if err != nil {
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
	g, err := open(ctx, gateDir)
	if err != nil {
		return nil, fmt.Errorf("open the gate: %w", err)
	}
	defer g.Close()
	for i, t := range trials {
		o := outs[i]
		edit := Edit{}
		for p, c := range t.Edit {
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
		o.Truth = newErrors(before[t.Name], after[t.Name])
		o.Class, o.Cause = classify(j, o.Truth)
	}
	return outs, nil
}

func errors2(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// writeFiles writes files under dir.
func writeFiles(dir string, files Files) error {
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(files[rel]), 0o644); err != nil {
			return err
		}
	}
	return os.MkdirAll(dir, 0o755)
}
