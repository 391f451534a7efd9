package shadow

import (
	"fmt"
	"maps"
	"os"
	"path"
	"slices"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/tsconfig"
)

// maxConfigProjects bounds the projects one configuration change runs the
// batch checker for: a monorepo's shared base would otherwise run every
// package's checker in one check.
const maxConfigProjects = 16

// configPlan is the batch run that checks g when it holds configuration
// its server reads only from disk (tsserver's tsconfig.json and
// package.json, a base a tsconfig.json extends, pyright's configuration,
// JSON that code imports): the checker, in a shadow tree of the changed
// files, over every project that may read it, each run's silence an
// answer. Those are the projects of files (the changed files and their
// dependants: every file below a changed configuration, the importers of
// imported data), the project configurations that are or extend a changed
// file, and, for a package.json (module format, exports), every project.
// nil, with why, when no such run can be had.
func (v *Validator) configPlan(snap *Snapshot, g *group, files []string) (*batchPlan, string) {
	c := v.batchFor(g.server)
	if c == nil {
		return nil, "no batch checker runs here"
	}
	plan := &batchPlan{checker: c, costKey: g.server.Spec().Name}
	if c.Tool().Kind == batch.Command {
		// A command (the go command's vet) checks the module it runs in
		// as the changed tree has it, created and deleted files too:
		// `./...` at the root leaves out a module below it. A change to
		// a module's files runs it in that module, and in every module
		// that may build from that folder (goModules: a module below
		// whose replace names the root's, as golang/tools' gopls does).
		if slices.ContainsFunc(g.changes, func(ch *changeset.Change) bool { return moduleFile(ch.Path) }) {
			plan.configs = goModules(snap, g.changes, v.root.Dir(), v.root.Abs)
		}
		// A file a package embeds is vetted in that package's module.
		for _, p := range g.diskConfig {
			if dir, ok := goModuleOf(snap, p); ok && !moduleFile(p) && !slices.Contains(plan.configs, v.root.Abs(dir)) {
				plan.configs = append(plan.configs, v.root.Abs(dir))
			}
		}
		if len(plan.configs) == 0 {
			plan.configs = []string{v.root.Dir()}
		}
		if len(plan.configs) > maxConfigProjects {
			return nil, fmt.Sprintf("%d modules would run %s, more than the %d one check runs", len(plan.configs), c.Tool().Label, maxConfigProjects)
		}
		return plan, ""
	}
	for _, ch := range g.changes {
		if servers.LanguageOf(ch.Path) == "" && (ch.Delete || !ch.BaseExists) {
			// The projects are read from the disk: one created or
			// deleted would not be among them.
			return nil, fmt.Sprintf("%s is created or deleted, which changes what the projects are", ch.Path)
		}
	}
	add := func(project string) {
		if !slices.Contains(plan.configs, project) {
			plan.configs = append(plan.configs, project)
		}
	}
	projects := tsconfig.NewProjects(v.root.Dir())
	if slices.ContainsFunc(g.diskConfig, func(p string) bool { return path.Base(p) == "package.json" }) {
		langs := g.server.Spec().Languages
		for _, rel := range snap.Sorted() {
			if slices.Contains(langs, servers.LanguageOf(rel)) {
				files = append(files, v.root.Abs(rel))
			}
		}
	}
	for _, abs := range files {
		if servers.LanguageOf(abs) == "" {
			continue // a configuration or data file: by the rule below
		}
		project, ok := v.batchProject(projects, c.Tool().Kind, abs)
		switch {
		case !ok && g.inferred:
			rel, _ := v.root.Rel(abs)
			return nil, fmt.Sprintf("%s is in no project %s runs, and the change governs it too", rel, c.Tool().Label)
		case ok:
			add(project)
		}
		// Otherwise no project reads it, so no project configuration
		// governs it: a file of an inferred project, or one the
		// configuration leaves out before and after alike.
	}
	if c.Tool().Kind == batch.TSC {
		// A project the changed configuration may give its first files
		// (its include widened) has no file on the disk to name it.
		for _, p := range projectsReading(snap, v.root.Abs, g.diskConfig) {
			add(p)
		}
	}
	if c.Tool().Kind == batch.Pyright && len(plan.configs) == 0 {
		// pyright's configuration with no file covered yet: the
		// projects of its own directories.
		for _, p := range g.diskConfig {
			if project, ok := v.configProject(batch.Pyright, p); ok {
				add(project)
			}
		}
	}
	switch {
	case len(plan.configs) == 0:
		return nil, fmt.Sprintf("no project of %s reads it", c.Tool().Label)
	case len(plan.configs) > maxConfigProjects:
		return nil, fmt.Sprintf("%d projects would run %s, more than the %d one check runs", len(plan.configs), c.Tool().Label, maxConfigProjects)
	}
	return plan, ""
}

// dataChanges are g's changes to data code imports: their importers
// are found by the import graph.
func (g *group) dataChanges() []*changeset.Change {
	var out []*changeset.Change
	for _, c := range g.changes {
		if slices.Contains(g.data, c.Path) {
			out = append(out, c)
		}
	}
	return out
}

// projectsReading returns the TypeScript projects (tsconfig.json,
// jsconfig.json; absolute) of snap that are one of the configuration
// files changed (workspace-relative) or extend one, directly or not.
func projectsReading(snap *Snapshot, abs func(string) string, changed []string) []string {
	var out []string
	for _, rel := range snap.Sorted() {
		if base := path.Base(rel); base != "tsconfig.json" && base != "jsconfig.json" {
			continue
		}
		reads := slices.Contains(changed, rel)
		for _, ext := range tsconfig.Extended(abs(rel)) {
			reads = reads || slices.ContainsFunc(changed, func(c string) bool { return abs(c) == ext })
		}
		if reads {
			out = append(out, abs(rel))
		}
	}
	return out
}

// goModules returns the directories (absolute) of the workspace's Go
// modules, with changes applied, whose build may read a changed module
// file: the changed ones' own (and the one around a go.mod created or
// deleted, whose packages it takes or gives), and every module with a
// replace directive (only through one does the go command build a module
// from a folder of the workspace rather than a published version); every
// module where a go.work may join them.
func goModules(snap *Snapshot, changes []*changeset.Change, root string, abs func(string) string) []string {
	content := func(rel string) []byte {
		for _, ch := range changes {
			if ch.Path == rel {
				return ch.Content
			}
		}
		data, _ := os.ReadFile(abs(rel))
		return data
	}
	work := reach.GoWorkAbove(root)
	dirs := map[string]bool{} // module directories, kept or not
	for rel := range snap.Files {
		switch path.Base(rel) {
		case "go.mod":
			dirs[path.Dir(rel)] = true
		case "go.work":
			work = true
		}
	}
	changed := map[string]bool{}
	var carved []string // folders a go.mod created or deleted gives or takes
	for _, ch := range changes {
		switch path.Base(ch.Path) {
		case "go.mod":
			dirs[path.Dir(ch.Path)] = !ch.Delete
			if ch.Delete || ch.Created() {
				carved = append(carved, path.Dir(ch.Path))
			}
		case "go.work":
			work = true
		}
		if moduleFile(ch.Path) {
			changed[path.Dir(ch.Path)] = true
		}
	}
	// A go.mod created or deleted moves its folder's packages out of the
	// module around it, or into it: that module is changed too.
	for _, d := range carved {
		if up, ok := goModuleOf(snap, d); ok {
			changed[up] = true
		}
	}
	var out []string
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		if dirs[d] && (work || changed[d] || reach.GoModReplaces(content(path.Join(d, "go.mod")))) {
			out = append(out, abs(d))
		}
	}
	return out
}
