package hooks

import (
	"context"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// wayBack returns the change set that takes the disk back to the
// snapshot, for the files that differ; unknown are changed files it
// cannot take back (left out by its bounds, known by their hash alone,
// binary now, a link, installed packages, first seen by an edit after
// the session had changed them, or an ignore file the session changed).
func (g *Gate) wayBack(ctx context.Context, root *workspace.Root, snap *Snapshot) (specs []changeset.Spec, unknown []string, err error) {
	l := &lookingBack{root: root, snap: snap, ignored: map[string]bool{},
		now: map[string]string{}, opaque: map[string]string{}, links: map[string]string{}}
	if err := root.Walk(ctx, workspace.Path{Abs: root.Dir(), Rel: "."}, workspace.WalkOptions{Ignored: snap.IgnoredKept}, l.visit); err != nil {
		return nil, nil, err
	}
	l.unvisited()
	l.opaqueChanges()
	l.installedChanges()
	l.linkChanges()
	specs = l.specs(g)
	l.ruleChanges(specs)
	sort.Strings(l.unknown)
	return specs, slices.Compact(l.unknown), nil
}

// lookingBack compares the disk with a session's snapshot.
type lookingBack struct {
	root    *workspace.Root
	snap    *Snapshot
	ignored map[string]bool   // each text file the walk read: whether the ignore rules leave it out
	now     map[string]string // rel -> hash on disk ("" absent)
	opaque  map[string]string // rel -> hash of a binary file on disk
	links   map[string]string // rel -> a symbolic link's target
	depDirs []string
	unknown []string
	// keptDirs are the directories of the files the snapshot holds.
	keptDirs map[string]bool
}

func (l *lookingBack) visit(e workspace.Entry) error {
	switch {
	case e.IsDir():
		return intoDir(e, &l.depDirs)
	case e.Mode&fs.ModeSymlink != 0 && l.snap.LinksKept:
		target, err := os.Readlink(e.Abs)
		if err != nil {
			target = "\x00unreadable"
		}
		l.links[e.Rel] = target
		return nil
	case !e.Mode.IsRegular() || e.Ignored && !isSource(e.Rel) && !l.hidingRules(e.Rel):
		return nil
	}
	l.ignored[e.Rel] = e.Ignored
	data, err := os.ReadFile(e.Abs)
	switch {
	case err != nil:
	case workspace.IsBinary(data) && (e.Ignored || !l.snap.OpaqueKept):
	case workspace.IsBinary(data):
		l.opaque[e.Rel] = changeset.Hash(data)
	default:
		l.now[e.Rel] = changeset.Hash(data)
	}
	return nil
}

// unvisited reads the kept files the walk does not visit (ignored ones
// an edit touched, imported JSON).
func (l *lookingBack) unvisited() {
	for rel := range l.snap.Files {
		if _, seen := l.ignored[rel]; seen {
			continue
		}
		data, err := os.ReadFile(l.root.Abs(rel))
		switch {
		case err == nil && !workspace.IsBinary(data):
			l.now[rel] = changeset.Hash(data)
		case err == nil:
			l.unknown = append(l.unknown, rel) // binary now: no way back Anvil can check
			l.now[rel] = l.snap.Files[rel]
		default:
			l.now[rel] = ""
		}
	}
}

// opaqueChanges names the files known only by their hash that changed,
// and the binary files now on disk that were not, where a checker may
// read them: neither is a change set Anvil can check.
func (l *lookingBack) opaqueChanges() {
	var changed []string
	for rel, was := range l.snap.Opaque {
		cur, ok := l.opaque[rel]
		if !ok {
			cur, ok = l.now[rel]
		}
		if !ok || cur != was {
			changed = append(changed, rel)
		}
		delete(l.now, rel)
		delete(l.opaque, rel)
	}
	for rel := range l.opaque {
		// Text at the start and binary now, or a binary file the turn
		// made.
		changed = append(changed, rel)
		l.now[rel] = l.snap.Files[rel] // not a change of its own below
	}
	if len(changed) == 0 {
		return
	}
	read := l.binaryReaders()
	for _, rel := range changed {
		if read(rel) {
			l.unknown = append(l.unknown, rel)
		}
	}
}

// binaryReaders returns whether a checker may read a file that is not
// text, or too large to keep, by the gate's own rules (reach): code of a
// kind a server checks, or JSON, whatever its size; a file a //go:embed
// names or the go command builds; anything in a Cargo workspace
// (include_bytes!, which only cargo's records name). Type checkers of
// TypeScript, Python and C read no other such file, so an editor's swap
// file, a .pyc or a binary a build leaves is no change of theirs.
func (l *lookingBack) binaryReaders() func(rel string) bool {
	goFiles := reach.Files{}
	cargo := false
	for rel := range l.now {
		switch {
		case strings.HasSuffix(rel, ".go"):
			goFiles[rel] = reach.FileStat{Abs: l.root.Abs(rel)}
		case path.Base(rel) == "Cargo.toml":
			cargo = true
		}
	}
	return func(rel string) bool {
		return isSource(rel) || path.Ext(rel) == ".json" || cargo ||
			len(goFiles) > 0 && (reach.EmbeddedBy(goFiles, rel) != "" || reach.GoCommandReads(goFiles, rel) != "")
	}
}

// installedChanges names the dependency directories whose packages were
// installed, upgraded, removed or changed inside: the way back restores
// the manifests and lock files, not what is installed.
func (l *lookingBack) installedChanges() {
	if !l.snap.InstalledKept {
		return
	}
	installed := make(map[string]string, len(l.depDirs))
	for _, dir := range l.depDirs {
		switch was := l.snap.Installed[dir]; {
		case !l.snap.InstalledWhole:
			installed[dir] = shadow.InstalledStamp(l.root, dir) // a snapshot of top stamps alone
		case strings.HasPrefix(was, partialStamp):
			installed[dir] = topStamp(l.root, dir) // its start's was its top: the whole is not walked again
		default:
			installed[dir] = packagesStamp(l.root, dir, maxPackageFiles, l.snap.PackageStarts)
		}
	}
	for dir, stamp := range installed {
		if was, ok := l.snap.Installed[dir]; !ok || was != stamp {
			l.unknown = append(l.unknown, dir+"/")
		}
	}
	for dir := range l.snap.Installed {
		if _, ok := installed[dir]; !ok {
			l.unknown = append(l.unknown, dir+"/")
		}
	}
}

// linkChanges names the links made, removed or pointed elsewhere: the
// way back cannot make links, and a link is not taken for a file's
// change.
func (l *lookingBack) linkChanges() {
	for rel, target := range l.links {
		if l.snap.Links[rel] != target {
			l.unknown = append(l.unknown, rel)
		}
	}
	for rel := range l.snap.Links {
		if _, ok := l.links[rel]; !ok {
			l.unknown = append(l.unknown, rel)
			l.now[rel] = l.snap.Files[rel]
		}
	}
}

// ruleChanges names the ignore files the session changed: the walk
// above went by the rules as they are now, so a file the session made
// that they now leave out went unseen.
func (l *lookingBack) ruleChanges(specs []changeset.Spec) {
	for _, sp := range specs {
		if path.Base(sp.Path) == ".gitignore" {
			l.unknown = append(l.unknown, sp.Path)
		}
	}
	if !l.snap.RulesKept {
		return
	}
	for rel, hash := range rootRules(l.root) {
		if l.snap.Rules[rel] != hash {
			l.unknown = append(l.unknown, rel)
		}
	}
}

// specs returns the way back for each file that differs from the
// snapshot.
func (l *lookingBack) specs(g *Gate) []changeset.Spec {
	var paths []string
	for rel := range l.now {
		paths = append(paths, rel)
	}
	for rel := range l.snap.Files {
		if _, ok := l.now[rel]; !ok {
			paths = append(paths, rel)
			l.now[rel] = ""
		}
	}
	sort.Strings(paths)
	var specs []changeset.Spec
	for _, rel := range paths {
		was, known := l.snap.Files[rel]
		if !known && (l.snap.Partial || l.ignored[rel] && l.snap.IgnoredPartial) {
			l.unknown = append(l.unknown, rel)
			continue
		}
		if l.snap.Late[rel] {
			l.unknown = append(l.unknown, rel) // its start is not known
		}
		// A file the snapshot does not hold did not exist at the start.
		spec, ok := g.backTo(rel, was, l.now[rel])
		switch {
		case !ok:
			l.unknown = append(l.unknown, rel)
		case spec != nil:
			specs = append(specs, *spec)
		}
	}
	return specs
}

// hidingRules reports whether rel is an ignored .gitignore the end of the
// turn compares: one the snapshot holds (its change is named), or one in
// a directory where the snapshot holds files, which it may now hide
// (rulesThatMayHide). A tool's cache folder made during the turn with a
// .gitignore of "*" (pytest's, mypy's) hides nothing that was there.
func (l *lookingBack) hidingRules(rel string) bool {
	if !rulesThatMayHide(l.root, rel) {
		return false
	}
	if _, kept := l.snap.Files[rel]; kept {
		return true
	}
	if l.keptDirs == nil {
		l.keptDirs = map[string]bool{}
		for f := range l.snap.Files {
			for d := path.Dir(f); d != "." && !l.keptDirs[d]; d = path.Dir(d) {
				l.keptDirs[d] = true
			}
		}
	}
	return l.keptDirs[path.Dir(rel)]
}
