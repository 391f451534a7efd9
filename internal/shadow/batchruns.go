package shadow

import (
	"fmt"
	"os"
	"path"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/diagformat"
	"github.com/anvil-dev/anvil/internal/pyconfig"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/tsconfig"
)

// BatchRun is one run of a project's own batch checker over the whole of
// a project: what the project's build would say of it.
type BatchRun struct {
	Tool batch.Tool
	// Config is the project the run checks (absolute): a tsconfig.json
	// for tsc, pyright's directory, the root for a project checker.
	Config string
	// Files are the files (workspace-relative) that brought the run in.
	Files []string
}

// BatchRuns returns the runs of the project's batch checkers that check
// the files rels (workspace-relative), chosen as the gate chooses them: the
// project checker ([check], cargo check) for the files it covers, else the
// batch checker of the same compiler as the file's language server. A
// file of no language (a README) needs no run; a source or configuration
// file no batch checker covers is returned in uncovered, with why.
// replay holds the gate to these runs.
func (v *Validator) BatchRuns(rels []string) (runs []*BatchRun, uncovered []Skipped) {
	projects := tsconfig.NewProjects(v.root.Dir())
	byKey := map[string]*BatchRun{}
	add := func(tool batch.Tool, config, rel string) {
		key := tool.Label + "\x00" + config
		r, ok := byKey[key]
		if !ok {
			r = &BatchRun{Tool: tool, Config: config}
			byKey[key] = r
			runs = append(runs, r)
		}
		r.Files = append(r.Files, rel)
	}
	for _, rel := range rels {
		if pc := v.projectCheckerFor(rel); pc != nil {
			add(pc.checker.Tool(), v.root.Dir(), rel)
			continue
		}
		lang, config := servers.LanguageOf(rel), false
		if lang == "" {
			lang = cFragmentLanguage(rel)
		}
		if lang == "" {
			if lang = servers.ConfigLanguage(rel); lang == "" {
				continue
			}
			config = true
		}
		srv, err := v.servers.ForLanguage(lang)
		if err != nil {
			uncovered = append(uncovered, Skipped{Path: rel, Reason: err.Error()})
			continue
		}
		tool, ok := v.batchTool(srv)
		if !ok {
			uncovered = append(uncovered, Skipped{Path: rel, Reason: srv.Spec().Name + " has no batch checker Anvil knows"})
			continue
		}
		var project string
		if config {
			project, ok = v.configProject(tool.Kind, rel)
		} else {
			project, ok = v.batchProject(projects, tool.Kind, v.root.Abs(rel))
		}
		if !ok {
			uncovered = append(uncovered, Skipped{Path: rel, Reason: fmt.Sprintf("no project of %s checks it", tool.Label)})
			continue
		}
		add(tool, project, rel)
	}
	return runs, uncovered
}

// configProject returns the project a change to the configuration file
// rel reconfigures: the nearest tsconfig.json at or above it for tsc, the
// directory of pyright's nearest configuration.
func (v *Validator) configProject(kind batch.Kind, rel string) (string, bool) {
	switch kind {
	case batch.TSC:
		for dir := path.Dir(rel); ; dir = path.Dir(dir) {
			abs := v.root.Abs(path.Join(dir, "tsconfig.json"))
			if _, err := os.Stat(abs); err == nil {
				return abs, true
			}
			if dir == "." || dir == "/" {
				return "", false
			}
		}
	case batch.Pyright:
		return v.root.Abs(pyconfig.Nearest(v.root.Dir(), rel).Dir), true
	case batch.Command:
		return v.root.Dir(), true
	}
	return "", false
}

// goVetTool is Go's batch checker: `go vet ./...` at the module root,
// which type-checks every package, tests included, as gopls does, over
// the modules already in the module cache (no network, no toolchain
// download; the sealed environment keeps HOME, GOPATH and GOMODCACHE, and
// the sandbox shows the cache go env names). buildCache is the go build
// cache every run shares ("" for one per checker): the go command writes
// it, no code of the repository does.
func goVetTool(buildCache string) batch.Tool {
	env := []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local"}
	return batch.Tool{Kind: batch.Command, Argv: []string{"go", "vet", "./..."}, Format: diagformat.GoVet, Label: "go vet", Env: env, CacheEnv: "GOCACHE", SharedCache: buildCache}
}
