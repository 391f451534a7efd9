package compiledb

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Includes are resolved as the compiler resolves them: "x.h" in the
// including file's directory, then the -iquote and -I directories of its
// compile command; <x.h> through -I, -isystem and -idirafter only; and
// the files a command forces in with -include. Only files of the
// workspace are followed (system headers are inputs). A file's compile
// command is its compile database's entry; a header, which has none, is
// resolved against the directories of every command of its database, and
// every file found counts (more includers, never fewer). An include that
// names no file anywhere (or a macro) is untraced. An include found in
// none of the directories Anvil reads, or only outside the workspace, may
// still be found by the compiler through a search path Anvil does not
// read (a response file, an option it does not know such as
// `--include-directory=`, a sysroot): it is taken as every file of the
// workspace its name can be (the name's tail), so that reading less of a
// command than the compiler does adds includers and never drops one.

// Resolver resolves the includes of a workspace's C/C++ files.
type Resolver struct {
	root string
	// files, when set, are the files of the workspace (relative) an
	// include can name; nil means whatever exists on disk.
	files map[string]bool
	dbs   map[string]*DB
	// dbOf caches the compile database governing each directory (""
	// for none).
	dbOf map[string]string
	// unions are, per database, the include directories of all its
	// commands: what a header is resolved against.
	unions map[string]IncludeDirs
	// paths caches each file's search path.
	paths map[string]searchPath
	// byBase indexes files by base name, for includes found nowhere Anvil
	// reads (tails); built on first use.
	byBase map[string][]string
}

// NewResolver returns a resolver for the workspace at root (absolute)
// whose files (relative, slash-separated) are those given, or, for nil,
// those on disk.
func NewResolver(root string, files []string) *Resolver {
	r := &Resolver{root: root, dbs: map[string]*DB{}, dbOf: map[string]string{}, unions: map[string]IncludeDirs{}, paths: map[string]searchPath{}}
	if files != nil {
		r.files = map[string]bool{}
		for _, f := range files {
			r.files[f] = true
		}
	}
	return r
}

// DB returns the compile database governing the file rel, or nil (also
// when it cannot be read: the check says why).
func (r *Resolver) DB(rel string) *DB {
	dir := filepath.Dir(filepath.Join(r.root, filepath.FromSlash(rel)))
	p, ok := r.dbOf[dir]
	if !ok {
		p, _ = Find(filepath.Join(dir, "x.c"))
		r.dbOf[dir] = p
	}
	if p == "" {
		return nil
	}
	db, ok := r.dbs[p]
	if !ok {
		db, _ = Load(p)
		r.dbs[p] = db
	}
	return db
}

// searchPath is where a file's includes are looked for beyond its own
// directory, and Dir, the directory its command compiles in ("" for a
// file without one, looked for with every command's directories, which
// forces nothing in).
type searchPath struct {
	IncludeDirs
	Dir string
}

// dirs returns rel's search path, read once per file: a command's
// reading opens its response files.
func (r *Resolver) dirs(rel string) searchPath {
	if s, ok := r.paths[rel]; ok {
		return s
	}
	s := r.searchPathOf(rel)
	r.paths[rel] = s
	return s
}

func (r *Resolver) searchPathOf(rel string) searchPath {
	db := r.DB(rel)
	if db == nil {
		return searchPath{}
	}
	if c, ok := db.For(filepath.Join(r.root, filepath.FromSlash(rel))); ok {
		return searchPath{IncludeDirs: c.Includes(), Dir: c.Dir}
	}
	u, ok := r.unions[db.Path]
	if !ok {
		seen := map[string]bool{}
		for _, c := range db.Commands {
			d := c.Includes()
			for _, q := range d.Quote {
				if !seen["q"+q] {
					seen["q"+q] = true
					u.Quote = append(u.Quote, q)
				}
			}
			for _, a := range d.Angle {
				if !seen["a"+a] {
					seen["a"+a] = true
					u.Angle = append(u.Angle, a)
				}
			}
			u.Unread = u.Unread || d.Unread
		}
		if db.Flags != nil {
			u = (Command{Dir: filepath.Dir(db.Path), Args: append([]string{"cc"}, db.Flags...)}).Includes()
		}
		u.Forced = nil
		r.unions[db.Path] = u
	}
	return searchPath{IncludeDirs: u}
}

// lookup returns the workspace files name is found as in dirs, and
// whether it exists outside the workspace in one of them.
func (r *Resolver) lookup(name string, dirs []string) (found []string, outside bool) {
	for _, dir := range dirs {
		p := filepath.Clean(filepath.Join(dir, filepath.FromSlash(name)))
		if filepath.IsAbs(name) {
			p = filepath.Clean(name)
		}
		if t, ok := r.rel(p); ok {
			if r.has(t) {
				found = appendNew(found, []string{t})
			}
			continue
		}
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			outside = true
		}
	}
	return found, outside
}

// Resolve returns the workspace files (relative) the include spec of the
// file rel can name, and whether it is traced: false when it names
// nothing that exists (or is a macro), so that anything may be behind it.
func (r *Resolver) Resolve(rel, spec string) ([]string, bool) {
	if len(spec) < 2 || (spec[0] != '"' && spec[0] != '<') {
		return nil, false
	}
	name := spec[1 : len(spec)-1]
	d := r.dirs(rel)
	var dirs []string
	if spec[0] == '"' {
		dirs = append(dirs, filepath.Dir(filepath.Join(r.root, filepath.FromSlash(rel))))
		dirs = append(dirs, d.Quote...)
	}
	dirs = append(dirs, d.Angle...)
	out, existsOutside := r.lookup(name, dirs)
	switch {
	case len(out) > 0 && d.Unread:
		// Another file of that name may come first on a search path
		// the command gives where Anvil does not read it.
		return appendNew(out, r.tails(name)), true
	case len(out) > 0:
		return out, true
	case spec[0] == '<', existsOutside:
		// A system header, or another project's (an input), unless a
		// search path Anvil does not read leads to a file of the
		// workspace of that name.
		return r.tails(name), true
	}
	return nil, false
}

// tails returns the workspace files an include of name can be, found
// through some directory: those whose path ends with name (its leading
// "./" and "../" dropped).
func (r *Resolver) tails(name string) []string {
	if r.files == nil {
		return nil
	}
	name = path.Clean(filepath.ToSlash(name))
	for strings.HasPrefix(name, "../") {
		name = strings.TrimPrefix(name, "../")
	}
	if name == "." || name == ".." || strings.HasPrefix(name, "/") {
		return nil
	}
	if r.byBase == nil {
		r.byBase = map[string][]string{}
		for f := range r.files {
			r.byBase[path.Base(f)] = append(r.byBase[path.Base(f)], f)
		}
	}
	var out []string
	for _, f := range r.byBase[path.Base(name)] {
		if f == name || strings.HasSuffix(f, "/"+name) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// Forced returns the workspace files rel's compile command forces in.
// The compiler looks for a forced file in the compilation's directory,
// then along the "…" chain (-iquote, then -I and the rest), as gcc's
// manual says of -include; one found in none of them, or under a command
// whose search Anvil does not read whole, is also taken by its name's
// tail, as an include is (tails).
func (r *Resolver) Forced(rel string) []string {
	d := r.dirs(rel)
	if d.Dir == "" {
		return nil
	}
	dirs := append(append([]string{d.Dir}, d.Quote...), d.Angle...)
	var out []string
	for _, name := range d.Forced {
		found, _ := r.lookup(name, dirs)
		if len(found) == 0 || d.Unread {
			found = appendNew(found, r.tails(name))
		}
		out = appendNew(out, found)
	}
	return out
}

// ForcesUnknown reports whether rel's own compile command may force in
// files Anvil cannot name (a response file it does not read): the unit
// may read any file.
func (r *Resolver) ForcesUnknown(rel string) bool {
	d := r.dirs(rel)
	return d.Dir != "" && d.ForcesUnread
}

// Included returns what rel (with content src) includes and forces in,
// resolved.
func (r *Resolver) Included(rel string, src []byte) []string {
	var out []string
	for _, spec := range IncludeSpecs(src) {
		targets, _ := r.Resolve(rel, spec)
		out = append(out, targets...)
	}
	return append(out, r.Forced(rel)...)
}

func (r *Resolver) has(rel string) bool {
	if r.files != nil {
		return r.files[rel]
	}
	st, err := os.Stat(filepath.Join(r.root, filepath.FromSlash(rel)))
	return err == nil && !st.IsDir()
}

// rel returns abs relative to the workspace, when it is inside.
func (r *Resolver) rel(abs string) (string, bool) {
	rel, err := filepath.Rel(r.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return path.Clean(filepath.ToSlash(rel)), true
}

// appendNew appends to out each of more it does not hold.
func appendNew(out, more []string) []string {
	for _, m := range more {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}
