package hooks

import (
	"context"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// take walks the workspace into a new snapshot (see Snapshot and the
// store's bounds); nothing is written but the contents' blobs.
func (s *Store) take(ctx context.Context, root *workspace.Root, session, transcript string) (*Snapshot, error) {
	t := &taking{store: s, root: root, imported: map[string]bool{}, snap: &Snapshot{
		Workspace: root.Dir(), Session: session, Transcript: transcript, Created: s.clock().UTC(),
		Files: map[string]string{}, Opaque: map[string]string{}, Links: map[string]string{},
		OpaqueKept: true, LinksKept: true, InstalledKept: true, InstalledWhole: true, IgnoredKept: true,
		Rules: rootRules(root), RulesKept: true,
	}}
	if err := root.Walk(ctx, workspace.Path{Abs: root.Dir(), Rel: "."}, workspace.WalkOptions{Ignored: true}, t.visit); err != nil {
		return nil, err
	}
	if err := t.keepImportedJSON(); err != nil {
		return nil, err
	}
	t.snap.Installed = installedStamps(root, t.depDirs)
	return t.snap, nil
}

// intoDir is a session snapshot's walk's rule for a directory, the same
// when it is taken and when the disk is compared with it: installed
// packages (noted in dirs, stamped whole) and Anvil's and git's own data
// are not walked.
func intoDir(e workspace.Entry, dirs *[]string) error {
	if workspace.IsDependencyDir(e.Abs) {
		*dirs = append(*dirs, e.Rel)
		return fs.SkipDir
	}
	if workspace.Protected(e.Rel) {
		return fs.SkipDir
	}
	return nil
}

// taking is one snapshot being taken.
type taking struct {
	store *Store
	root  *workspace.Root
	snap  *Snapshot
	// total counts the bytes kept of the files the ignore rules let
	// through; ignoredFiles and ignoredBytes those of ignored files,
	// under bounds of their own.
	total, ignoredFiles, ignoredBytes int
	depDirs                           []string
	// Ignored JSON files are kept where the code names them: data a
	// module imports is part of its importers' types, and a build
	// folder's thousands of JSON files would crowd out the rest.
	ignoredJSON   []workspace.Entry
	imported      map[string]bool // by path, from a relative specifier
	importedTails []string        // by the end of the path, from any other
}

func (t *taking) visit(e workspace.Entry) error {
	switch {
	case e.IsDir():
		return intoDir(e, &t.depDirs)
	case e.Mode&fs.ModeSymlink != 0:
		t.keepLink(e)
		return nil
	case !e.Mode.IsRegular():
		return nil
	case e.Ignored:
		return t.keepIgnored(e)
	}
	return t.keepFile(e)
}

func (t *taking) keepLink(e workspace.Entry) {
	target, err := os.Readlink(e.Abs)
	if err != nil || len(t.snap.Links) >= maxSnapFiles {
		t.snap.Partial = true
		return
	}
	t.snap.Links[e.Rel] = target
}

// keepIgnored keeps an ignored file a checker reads by its kind (an
// ignored .ts, a generated .rs): it is the project's as much as any
// other; and a .gitignore that ignores itself ("*"), whose change the
// end of a turn names like any other's. JSON waits until the code is
// read (keepImportedJSON).
func (t *taking) keepIgnored(e workspace.Entry) error {
	if path.Ext(e.Rel) == ".json" && !isSource(e.Rel) {
		t.ignoredJSON = append(t.ignoredJSON, e)
		return nil
	}
	if !isSource(e.Rel) && !rulesThatMayHide(t.root, e.Rel) {
		return nil
	}
	return t.keepIgnoredFile(e)
}

func (t *taking) keepIgnoredFile(e workspace.Entry) error {
	data, err := os.ReadFile(e.Abs)
	if err != nil || len(data) > maxSnapFile || workspace.IsBinary(data) || t.ignoredFiles >= maxIgnoredFiles || t.ignoredBytes+len(data) > maxIgnoredBytes {
		t.snap.IgnoredPartial = true
		return nil
	}
	hash, err := t.store.keep(data)
	if err != nil {
		return err
	}
	t.snap.Files[e.Rel] = hash
	t.ignoredFiles, t.ignoredBytes = t.ignoredFiles+1, t.ignoredBytes+len(data)
	t.noteImports(e.Rel, data)
	return nil
}

func (t *taking) keepFile(e workspace.Entry) error {
	if len(t.snap.Files) >= maxSnapFiles || t.total >= maxSnapBytes {
		t.snap.Partial = true
		return fs.SkipAll
	}
	data, err := os.ReadFile(e.Abs)
	if err != nil {
		t.snap.Partial = true
		return nil
	}
	if len(data) > maxSnapFile || workspace.IsBinary(data) {
		// Any file may be read by a checker (an embedded image, a
		// generated table): one too large or not text to take back is
		// known by its hash, so that its change is seen.
		if len(t.snap.Opaque) < maxSnapFiles { // past it, a change is taken for a new file's
			t.snap.Opaque[e.Rel] = changeset.Hash(data)
		}
		return nil
	}
	hash, err := t.store.keep(data)
	if err != nil {
		return err
	}
	t.snap.Files[e.Rel] = hash
	t.total += len(data)
	t.noteImports(e.Rel, data)
	return nil
}

// noteImports notes the JSON files a kept module names: a relative
// specifier by its path; any other (a tsconfig paths alias, a baseUrl
// name) by what follows its first segment ("@gen/api/schema.json":
// api/schema.json), which the file's path ends in wherever the alias
// points: resolving it is the checker's, and the snapshot only keeps
// more for a path that matches. A package's manifest ("lib/package.json")
// is the package's, in a dependency directory the snapshot stamps.
func (t *taking) noteImports(rel string, data []byte) {
	if reach.Family(rel) != "ecma" || path.Ext(rel) == ".json" {
		return
	}
	for _, spec := range jsonImports(data) {
		switch _, after, _ := strings.Cut(spec, "/"); {
		case strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../"):
			t.imported[path.Join(path.Dir(rel), spec)] = true
		case after != "" && path.Base(spec) != "package.json":
			t.importedTails = append(t.importedTails, after)
		}
	}
}

// keepImportedJSON keeps the ignored JSON files a kept module imports.
func (t *taking) keepImportedJSON() error {
	for _, e := range t.ignoredJSON {
		if !t.imported[e.Rel] && !slices.ContainsFunc(t.importedTails, func(tail string) bool {
			return e.Rel == tail || strings.HasSuffix(e.Rel, "/"+tail)
		}) {
			continue
		}
		if err := t.keepIgnoredFile(e); err != nil {
			return err
		}
	}
	return nil
}

// jsonSpecifier matches a module specifier of a JSON file in an import,
// an export from, a dynamic import or a require.
var jsonSpecifier = regexp.MustCompile(`(?:\bfrom|\bimport|\brequire)\s*\(?\s*["']([^"'\n]+\.json)["']`)

// jsonImports returns the JSON specifiers a module's text names. Reading
// the text over-approximates (a comment's import counts too), which only
// keeps more.
func jsonImports(data []byte) []string {
	var out []string
	for _, m := range jsonSpecifier.FindAllSubmatch(data, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// rootRules hashes the root's ignore files ("" for one not there).
func rootRules(root *workspace.Root) map[string]string {
	out := map[string]string{}
	for _, rel := range workspace.RootIgnoreFiles() {
		data, err := os.ReadFile(root.Abs(rel))
		if err == nil {
			out[rel] = changeset.Hash(data)
		} else {
			out[rel] = ""
		}
	}
	return out
}

// rulesThatMayHide reports whether rel is an ignored .gitignore whose
// rules may hide something from the end of a turn's walk: one that
// ignores itself ("*"), in a directory the rules above it let through (a
// .gitignore inside an ignored directory hides nothing more).
func rulesThatMayHide(root *workspace.Root, rel string) bool {
	return path.Base(rel) == ".gitignore" && !root.Excluded(path.Dir(rel), true)
}
