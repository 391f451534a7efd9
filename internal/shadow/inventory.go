package shadow

import (
	"bytes"
	"context"
	"go/build"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/pyconfig"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/tsconfig"
)

// unread is a changed file no language server applies to that a checker
// reads all the same: checked as lang's (config: as its projects'
// configuration), or unverified with the reason.
type unread struct {
	change *changeset.Change
	lang   string
	config bool
	// why says who reads it, as a reason's prefix ("code imports this
	// JSON file: ").
	why string
	// data: it is data code imports (its importers are found by the
	// import graph), not a configuration.
	data       bool
	unverified string
}

// readersOf is the one place that decides what reads a changed file no
// language server applies to (notCode), whatever its name; it keeps in
// notCode only the files no checker reads. The rules, in order:
//   - data code imports (JSON through resolveJsonModule) is part of its
//     importers' types: TypeScript configuration, which the servers read
//     only from disk, so the batch checker checks it (configPlan);
//   - a file a //go:embed names is read by the go command, and gopls reads
//     it only from disk: the go command's vet checks it over the changed
//     tree (configPlan), where it runs; else unverified;
//   - a Go package's assembly and object files, and the vendor manifest,
//     are read by the go command and not checked by gopls: unverified;
//   - a file a tsconfig.json or pyright configuration extends configures
//     the project as the extending file does: checked as configuration;
//   - a file a C/C++ file includes, whatever its name (an X-macro list),
//     is code to the compiler: checked through its includers.
//
// Where the import graph cannot say who reads a file, it is unverified:
// an unknown reader is never taken for none.
func (v *Validator) readersOf(ctx context.Context, snap *Snapshot, set *changeset.Set, notCode []Skipped) (kept []Skipped, read []unread) {
	extended := v.extendedBy(snap, notCode)
	for _, s := range notCode {
		c, _ := set.Get(s.Path)
		if c == nil {
			kept = append(kept, s)
			continue
		}
		if r, ok := v.readerOf(ctx, snap, c, extended); ok {
			read = append(read, r)
			continue
		}
		kept = append(kept, s)
	}
	return kept, read
}

// readerOf applies readersOf's rules to one file.
func (v *Validator) readerOf(ctx context.Context, snap *Snapshot, c *changeset.Change, extended map[string]string) (unread, bool) {
	importers := func() (int, error) {
		if v.deps == nil {
			return 0, nil
		}
		d, err := v.deps.Dependants(ctx, snap.Files, []*changeset.Change{c}, 1)
		return len(d.Files), err
	}
	if path.Ext(c.Path) == ".json" {
		switch n, err := importers(); {
		case err != nil:
			return unread{change: c, unverified: "who imports this JSON file could not be found: " + err.Error()}, true
		case n > 0:
			return unread{change: c, lang: "typescript", config: true, why: "code imports this JSON file: ", data: true}, true
		}
	}
	if by := reach.EmbeddedBy(snap.Files, c.Path); by != "" {
		if !vetBuilds(v.opts.GoBuild, v.root.Abs, snap, by) {
			return unread{change: c, unverified: by + " embeds it (//go:embed), and gopls reads embedded files only from disk; the go command's vet does not build that file here (in no module, or a build constraint), so a change to it cannot be checked before it is written"}, true
		}
		// gopls reads embedded files only from disk; the go command,
		// over the changed tree, reports a pattern left with no file.
		return unread{change: c, lang: "go", config: true, why: by + " embeds it (//go:embed): "}, true
	}
	if why := reach.GoCommandReads(snap.Files, c.Path); why != "" {
		return unread{change: c, unverified: why + ", and gopls does not check it, so a change to it cannot be checked before it is written"}, true
	}
	if lang := extended[v.root.Abs(c.Path)]; lang != "" {
		return unread{change: c, lang: lang, config: true, why: "a project's configuration extends it: "}, true
	}
	if reach.Family(c.Path) == "" && v.deps != nil {
		n, err := importers()
		switch {
		case err != nil:
			return unread{change: c, unverified: "who includes or imports it could not be found: " + err.Error()}, true
		case n > 0:
			return unread{change: c, lang: "c"}, true
		}
	}
	return unread{}, false
}

// vetBuilds reports whether the go command's vet of a module builds the
// Go file rel (workspace-relative): it is in a module (goModuleOf), and
// this platform's build takes it (its build constraints and file name, as
// the file is on disk, for platform). Otherwise vet's silence says
// nothing of the files it embeds.
func vetBuilds(platform *build.Context, abs func(string) string, snap *Snapshot, rel string) bool {
	if _, ok := goModuleOf(snap, rel); !ok || platform == nil {
		return false
	}
	full := abs(rel)
	match, err := platform.MatchFile(filepath.Dir(full), filepath.Base(full))
	return err == nil && match
}

// goModuleOf returns the folder (workspace-relative) of the module that
// holds the file rel: the nearest above it with a go.mod. A file embedded
// is its embedding package's, since a pattern cannot leave the module.
func goModuleOf(snap *Snapshot, rel string) (string, bool) {
	for dir := path.Dir(rel); ; dir = path.Dir(dir) {
		if _, ok := snap.Files[path.Join(dir, "go.mod")]; ok {
			return dir, true
		}
		if dir == "." || dir == "/" {
			return "", false
		}
	}
}

// extendedBy maps the files a TypeScript project file or a pyright
// configuration of the workspace extends, directly or not (tsconfig.json
// extends ./configs/strict.json), to whose they are, by absolute path;
// nil when no file of notCode could be one.
func (v *Validator) extendedBy(snap *Snapshot, notCode []Skipped) map[string]string {
	maybe := false
	for _, s := range notCode {
		maybe = maybe || strings.HasSuffix(s.Path, ".json") || strings.HasSuffix(s.Path, ".toml")
	}
	if !maybe {
		return nil
	}
	extended := map[string]string{}
	for _, rel := range snap.Sorted() {
		switch servers.ConfigLanguage(rel) {
		case "typescript":
			if path.Base(rel) != "package.json" {
				for _, abs := range tsconfig.Extended(v.root.Abs(rel)) {
					extended[abs] = "typescript"
				}
			}
		case "python":
			for _, r := range pyconfig.Extended(v.root.Dir(), path.Dir(rel)) {
				extended[v.root.Abs(r)] = "python"
			}
		}
	}
	return extended
}

// namedByProjectConfig reports whether a TypeScript project configuration
// of the snapshot may name rel itself (its base name appears in the
// file's text: a "files" entry, which a deletion breaks with TS6053
// whoever imports it). Reading the text over-approximates: any mention
// counts.
func namedByProjectConfig(snap *Snapshot, rel string) bool {
	base := []byte(path.Base(rel))
	for p, st := range snap.Files {
		name := path.Base(p)
		if !strings.HasSuffix(name, ".json") || !(strings.HasPrefix(name, "tsconfig") || name == "jsconfig.json") {
			continue
		}
		data, err := os.ReadFile(st.Abs)
		if err != nil || bytes.Contains(data, base) {
			return true
		}
	}
	return false
}
