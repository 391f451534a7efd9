// Package detect looks at a workspace's files and guesses what 'anvil init'
// should write and what 'anvil doctor' should check: the project's
// languages, the build and dependency directories to ignore, and the
// command that runs its tests. It only reads; nothing here writes.
package detect

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Project is what a scan found.
type Project struct {
	// Languages are the detected languages, most files first.
	Languages []Language `json:"languages"`
	// IgnoreDirs are gitignore patterns for the dependency and build
	// directories present and not already ignored ("node_modules/").
	IgnoreDirs []string `json:"ignore_dirs"`
	// TestCommand is the likely test command, "" when none was recognised.
	TestCommand string `json:"test_command"`
	// Check is the project checker to propose for [check], nil when none
	// was recognised.
	Check *CheckProposal `json:"check,omitempty"`
}

// Language is one detected language and the evidence for it.
type Language struct {
	// Name is an LSP language id; the React variants are counted with
	// their base language ("typescript", "javascript").
	Name    string   `json:"name"`
	Files   int      `json:"files"`
	Markers []string `json:"markers,omitempty"` // root files that name it
}

// Names returns the language names.
func (p Project) Names() []string {
	var out []string
	for _, l := range p.Languages {
		out = append(out, l.Name)
	}
	return out
}

// maxFiles bounds a scan, so that init and doctor stay quick in a huge
// tree; the languages of the first files seen are a fair sample.
const maxFiles = 50_000

// minShare is the share of the source files a language without a marker
// needs to count: a few helper scripts do not make a Go project a Python
// one, and a language counted here is one doctor insists has a server.
const minShare = 0.10

// marker is a root file that says a language is used.
type marker struct{ file, language string }

func markers() []marker {
	return []marker{
		{"go.mod", "go"}, {"go.work", "go"},
		{"tsconfig.json", "typescript"},
		{"jsconfig.json", "javascript"}, {"package.json", "javascript"},
		{"pyproject.toml", "python"}, {"setup.py", "python"}, {"setup.cfg", "python"},
		{"requirements.txt", "python"}, {"pyrightconfig.json", "python"},
		{"Cargo.toml", "rust"},
	}
}

// ignorable reports whether a directory holds dependencies or build output.
// node_modules is junk at any depth; the others are proposed only at the
// root, where they are conventional, since src/build/ may well be source.
func ignorable(name string) bool {
	switch name {
	case "node_modules", "dist", "build", ".venv", "target", "vendor":
		return true
	}
	return false
}

// Scan walks the workspace, honouring its ignore files, and reports what it
// found. It fails only when ctx ends.
func Scan(ctx context.Context, root *workspace.Root) (Project, error) {
	var p Project
	counts := map[string]int{}
	total := 0 // source files of any known language
	proposed := map[string]bool{}
	start, err := root.Resolve(".")
	if err != nil {
		return Project{}, err
	}
	err = root.Walk(ctx, start, workspace.WalkOptions{}, func(e workspace.Entry) error {
		if e.IsDir() {
			name := filepath.Base(e.Abs)
			if ignorable(name) {
				// Seen by the walk, so not ignored yet: propose it.
				if e.Depth == 1 || name == "node_modules" {
					proposed[name+"/"] = true
				}
				return fs.SkipDir
			}
			if name[0] == '.' {
				return fs.SkipDir // .anvil, .idea, .cache: not the project's source
			}
			return nil
		}
		lang := family(servers.LanguageOf(e.Rel))
		if lang == "" {
			return nil
		}
		counts[lang]++
		total++
		if total >= maxFiles {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return Project{}, err
	}
	p.Languages = languages(root.Dir(), counts, total)
	for pat := range proposed {
		p.IgnoreDirs = append(p.IgnoreDirs, pat)
	}
	sort.Strings(p.IgnoreDirs)
	p.TestCommand = testCommand(root.Dir(), p.Names())
	p.Check = checkCommand(root.Dir())
	return p, nil
}

// family folds the React variants into their base language.
func family(lang string) string {
	switch lang {
	case "typescriptreact":
		return "typescript"
	case "javascriptreact":
		return "javascript"
	}
	return lang
}

// languages combines file counts and root markers: a language counts when
// a marker names it or its files reach minShare of the source files.
// package.json alone means JavaScript only in a project without TypeScript.
func languages(dir string, counts map[string]int, total int) []Language {
	byName := map[string]*Language{}
	get := func(name string) *Language {
		if byName[name] == nil {
			byName[name] = &Language{Name: name, Files: counts[name]}
		}
		return byName[name]
	}
	for _, m := range markers() {
		if fileExists(filepath.Join(dir, m.file)) {
			l := get(m.language)
			l.Markers = append(l.Markers, m.file)
		}
	}
	for name, n := range counts {
		if float64(n) >= minShare*float64(total) {
			get(name)
		}
	}
	if ts, js := byName["typescript"], byName["javascript"]; ts != nil && js != nil && js.Files == 0 {
		delete(byName, "javascript") // package.json of a TypeScript project
	}
	var out []Language
	for _, l := range byName {
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Files != out[j].Files {
			return out[i].Files > out[j].Files
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func fileExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir()
}
