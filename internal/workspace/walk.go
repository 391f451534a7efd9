package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Entry is one file or directory met by [Root.Walk].
type Entry struct {
	Rel   string      // slash-separated, relative to the root
	Abs   string      // absolute
	Depth int         // 1 for the direct children of the walk's start
	Mode  fs.FileMode // type bits only (directory, symlink, ...)
	// Ignored: the ignore rules leave it out (it, or a directory above
	// it); met only by a walk with WalkOptions.Ignored.
	Ignored bool
}

// IsDir reports whether the entry is a directory (symlinks never are).
func (e Entry) IsDir() bool { return e.Mode.IsDir() }

// WalkOptions tune [Root.Walk].
type WalkOptions struct {
	// MaxDepth limits how far below the start the walk goes; 0 means no limit.
	MaxDepth int
	// Ignored also visits what the ignore rules leave out, marked
	// Entry.Ignored (a generated file a checker reads all the same); .git
	// never.
	Ignored bool
}

// Walk visits the entries under start in lexical order, depth first, skipping
// what the ignore rules exclude (and always .git). The start itself is not
// visited and is walked even if ignored, like a path named on a command line;
// inside an ignored start only the ignore files at or below it apply, since
// the rules above it would exclude everything it holds.
// Symlinks are reported but never followed, so a walk cannot leave the root.
//
// fn may return [fs.SkipDir] for a directory to skip it, or [fs.SkipAll] to
// stop. Unreadable directories are skipped. Walk returns ctx.Err() when the
// context ends.
func (r *Root) Walk(ctx context.Context, start Path, opts WalkOptions, fn func(Entry) error) error {
	rules := r.rulesFor(start.Rel)
	err := r.walkDir(ctx, start.Abs, start.Rel, 1, rules, false, opts, fn)
	if errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

// rulesFor builds the ignore rules that apply inside the directory rel by
// entering every directory from the root down to it.
func (r *Root) rulesFor(rel string) ignoreRules {
	rules := rootRules(r.dir).enter(r.dir, ".")
	if rel == "." || rel == "" {
		return rules
	}
	cur := ""
	for _, part := range strings.Split(rel, "/") {
		cur = path.Join(cur, part)
		abs := filepath.Join(r.dir, filepath.FromSlash(cur))
		if rules.ignored(cur, true) {
			rules = ignoreRules{}
		}
		rules = rules.enter(abs, cur)
	}
	return rules
}

// Ignored reports whether the ignore rules leave the entry at rel
// (slash-separated, relative to the root) out of a walk of its parent
// directory, that is whether [Root.Walk] started there would skip it. The
// rules are the ones Walk applies inside the parent, dropped at an ignored
// directory on the way down as for an ignored start, so an entry below an
// ignored directory may be reported as not ignored. The root is never
// ignored; a .git directory always is.
func (r *Root) Ignored(rel string, isDir bool) bool {
	if rel == "." || rel == "" {
		return false
	}
	return r.rulesFor(path.Dir(rel)).ignored(rel, isDir)
}

// Excluded reports whether the ignore rules leave out the entry at rel
// or any directory above it, as a walk from the root meets them (unlike
// [Root.Ignored], which judges the last step alone). The root is never
// excluded.
func (r *Root) Excluded(rel string, isDir bool) bool {
	if rel == "." || rel == "" {
		return false
	}
	rules := rootRules(r.dir).enter(r.dir, ".")
	parts := strings.Split(rel, "/")
	cur := ""
	for i, part := range parts {
		cur = path.Join(cur, part)
		last := i == len(parts)-1
		if rules.ignored(cur, !last || isDir) {
			return true
		}
		if !last {
			rules = rules.enter(filepath.Join(r.dir, filepath.FromSlash(cur)), cur)
		}
	}
	return false
}

// walkDir walks the directory abs; ignored says the ignore rules left it
// out (a walk with WalkOptions.Ignored goes on inside).
func (r *Root) walkDir(ctx context.Context, abs, rel string, depth int, rules ignoreRules, ignored bool, opts WalkOptions, fn func(Entry) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil // unreadable: nothing to visit
	}
	for _, de := range entries {
		childRel := de.Name()
		if rel != "." {
			childRel = rel + "/" + de.Name()
		}
		isDir := de.IsDir()
		childIgnored := ignored || rules.ignored(childRel, isDir)
		if childIgnored && (!opts.Ignored || de.Name() == ".git") {
			continue
		}
		e := Entry{Rel: childRel, Abs: filepath.Join(abs, de.Name()), Depth: depth, Mode: de.Type(), Ignored: childIgnored}
		err := fn(e)
		if errors.Is(err, fs.SkipDir) {
			continue
		}
		if err != nil {
			return err
		}
		if !isDir || (opts.MaxDepth > 0 && depth >= opts.MaxDepth) {
			continue
		}
		if err := r.walkDir(ctx, e.Abs, childRel, depth+1, rules.enter(e.Abs, childRel), childIgnored, opts, fn); err != nil {
			return err
		}
	}
	return nil
}
