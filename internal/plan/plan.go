// Package plan is the Planner's output: a structured plan the user approves
// before anything is written, and the rules that make a plan acceptable.
package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// Plan is what the Planner submits and the user approves.
type Plan struct {
	Goal                 string   `json:"goal" jsonschema:"one sentence: what the change achieves"`
	Context              string   `json:"context" jsonschema:"what you learned about the code that the change depends on"`
	FilesToModify        []string `json:"files_to_modify" jsonschema:"existing files the change edits, relative to the workspace root"`
	FilesToCreate        []string `json:"files_to_create" jsonschema:"new files the change adds, relative to the workspace root"`
	Steps                []string `json:"steps" jsonschema:"ordered steps, each small enough to check"`
	VerificationCriteria []string `json:"verification_criteria" jsonschema:"how to tell the change is right"`
	Risks                []string `json:"risks" jsonschema:"what could go wrong, and what is deliberately left unchanged"`
}

// Files returns every file the plan names: to modify, then to create.
func (p *Plan) Files() []string {
	out := append([]string(nil), p.FilesToModify...)
	return append(out, p.FilesToCreate...)
}

// Check normalises the plan's paths against root and verifies it: files to
// modify exist and are files, files to create do not exist yet, everything
// is inside the workspace, and the plan has a goal and steps. All problems
// are reported together, worded for the Planner to fix.
func (p *Plan) Check(root *workspace.Root) error {
	var errs []error
	if strings.TrimSpace(p.Goal) == "" {
		errs = append(errs, errors.New("goal is empty"))
	}
	if len(p.Steps) == 0 {
		errs = append(errs, errors.New("steps is empty"))
	}
	if len(p.FilesToModify)+len(p.FilesToCreate) == 0 {
		errs = append(errs, errors.New("the plan names no files to modify or create"))
	}
	seen := map[string]bool{}
	norm := func(list []string, mustExist bool) []string {
		out := []string{}
		for _, f := range list {
			rp, err := root.Resolve(f)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", f, err))
				continue
			}
			if seen[rp.Rel] {
				errs = append(errs, fmt.Errorf("%s is listed twice", rp.Rel))
				continue
			}
			seen[rp.Rel] = true
			info, statErr := os.Stat(rp.Abs)
			switch {
			case mustExist && statErr != nil:
				errs = append(errs, fmt.Errorf("%s is in files_to_modify but does not exist (new files go in files_to_create)", rp.Rel))
			case mustExist && info.IsDir():
				errs = append(errs, fmt.Errorf("%s is a directory; list the files", rp.Rel))
			case !mustExist && statErr == nil:
				errs = append(errs, fmt.Errorf("%s is in files_to_create but already exists (put it in files_to_modify)", rp.Rel))
			}
			out = append(out, rp.Rel)
		}
		return out
	}
	p.FilesToModify = norm(p.FilesToModify, true)
	p.FilesToCreate = norm(p.FilesToCreate, false)
	return errors.Join(errs...)
}

// Save writes the plan as indented JSON.
func (p *Plan) Save(path string) error {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// Markdown renders the plan with all seven fields, for the user and for a
// revision prompt.
func (p *Plan) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Goal: %s\n\nContext: %s\n", p.Goal, p.Context)
	list := func(title string, items []string, numbered bool) {
		fmt.Fprintf(&b, "\n%s:\n", title)
		if len(items) == 0 {
			b.WriteString("  (none)\n")
		}
		for i, it := range items {
			if numbered {
				fmt.Fprintf(&b, "  %d. %s\n", i+1, it)
			} else {
				fmt.Fprintf(&b, "  - %s\n", it)
			}
		}
	}
	list("Files to modify", p.FilesToModify, false)
	list("Files to create", p.FilesToCreate, false)
	list("Steps", p.Steps, true)
	list("Verification criteria", p.VerificationCriteria, false)
	list("Risks", p.Risks, false)
	return b.String()
}
