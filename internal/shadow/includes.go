package shadow

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/anvil-dev/anvil/internal/compiledb"
	"github.com/anvil-dev/anvil/internal/syntax"
)

// C and C++ dependants follow #include, resolved as the compiler would:
// "x.h" in the including file's directory, then the -iquote and -I
// directories of its compile command; <x.h> through -I, -isystem and
// -idirafter only; and the files a command forces in with -include.
// Only files of the workspace are followed (system headers are inputs).
// A file's compile command is its compile database's entry; a header,
// which has none, is resolved against the directories of every command of
// its database, and every file found counts (more dependants, never
// fewer). An include that names no file anywhere (or a macro) is
// untraceable, and its file depends on every C/C++ change.

// cExts are the extensions of the C/C++ family: sources, headers, and the
// fragments projects include (.inc, .def, template implementations).
var cExts = map[string]bool{".c": true, ".h": true, ".cc": true, ".cpp": true, ".cxx": true, ".c++": true,
	".hpp": true, ".hh": true, ".hxx": true, ".h++": true, ".inc": true, ".ipp": true, ".tpp": true, ".tcc": true}

// includeLine matches an #include (#include_next, #import) directive;
// group 1 is what follows it.
var includeLine = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*(?:include|include_next|import)\b[ \t]*([^\n]*)`)

// cSurface is a C/C++ file's surface for the graph: its includes, each
// "x.h" or <x.h> with its delimiters, or the directive's text when it
// names no file (a macro). It is opaque: a header's every change reaches
// every includer, there is no cut-off.
func cSurface(src []byte) *syntax.Surface {
	s := &syntax.Surface{Opaque: "C and C++ includes are followed whole"}
	for _, m := range includeLine.FindAllSubmatch(src, -1) {
		s.Imports = append(s.Imports, syntax.Binding{Module: includeSpec(string(m[1])), Name: "*", Whole: true})
	}
	return s
}

// includeSpec reduces a directive's operand to "x.h" or <x.h>, or returns
// it trimmed when it is neither.
func includeSpec(rest string) string {
	rest = strings.TrimSpace(rest)
	if len(rest) > 0 {
		closer := map[byte]byte{'"': '"', '<': '>'}[rest[0]]
		if closer != 0 {
			if i := strings.IndexByte(rest[1:], closer); i >= 0 {
				return rest[:i+2]
			}
		}
	}
	return rest
}

// includeResolver resolves the includes of a workspace's C/C++ files.
type includeResolver struct {
	root  string
	files map[string]bool // every file of the workspace, relative
	dbs   map[string]*compiledb.DB
	// dbOf caches the compile database governing each directory (""
	// for none).
	dbOf map[string]string
	// unions are, per database, the include directories of all its
	// commands: what a header is resolved against.
	unions map[string]compiledb.IncludeDirs
}

func newIncludeResolver(root string, files []string) *includeResolver {
	r := &includeResolver{root: root, files: map[string]bool{}, dbs: map[string]*compiledb.DB{}, dbOf: map[string]string{},
		unions: map[string]compiledb.IncludeDirs{}}
	for _, f := range files {
		r.files[f] = true
	}
	return r
}

// db returns the compile database governing the file rel, or nil.
func (r *includeResolver) db(rel string) *compiledb.DB {
	dir := filepath.Dir(filepath.Join(r.root, filepath.FromSlash(rel)))
	p, ok := r.dbOf[dir]
	if !ok {
		p, _ = compiledb.Find(filepath.Join(dir, "x.c"))
		r.dbOf[dir] = p
	}
	if p == "" {
		return nil
	}
	db, ok := r.dbs[p]
	if !ok {
		db, _ = compiledb.Load(p) // an unreadable database governs nothing here; the check says why
		r.dbs[p] = db
	}
	return db
}

// dirs returns where rel's includes are looked for beyond its own
// directory, and the files its command forces in (absolute).
func (r *includeResolver) dirs(rel string) (compiledb.IncludeDirs, []string) {
	db := r.db(rel)
	if db == nil {
		return compiledb.IncludeDirs{}, nil
	}
	abs := filepath.Join(r.root, filepath.FromSlash(rel))
	if c, ok := db.For(abs); ok {
		d := c.Includes()
		var forced []string
		for _, f := range d.Forced {
			if !filepath.IsAbs(f) {
				f = filepath.Join(c.Dir, f)
			}
			forced = append(forced, filepath.Clean(f))
		}
		return d, forced
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
		}
		if db.Flags != nil {
			u = (compiledb.Command{Dir: filepath.Dir(db.Path), Args: append([]string{"cc"}, db.Flags...)}).Includes()
		}
		r.unions[db.Path] = u
	}
	return u, nil
}

// resolve returns the workspace files (relative) the include spec of the
// file rel can name, and whether it is traced: false when it names
// nothing that exists (or is a macro), so that anything may be behind it.
func (r *includeResolver) resolve(rel, spec string) ([]string, bool) {
	if len(spec) < 2 || (spec[0] != '"' && spec[0] != '<') {
		return nil, false
	}
	name := spec[1 : len(spec)-1]
	d, _ := r.dirs(rel)
	var dirs []string
	if spec[0] == '"' {
		dirs = append(dirs, filepath.Dir(filepath.Join(r.root, filepath.FromSlash(rel))))
		dirs = append(dirs, d.Quote...)
	}
	dirs = append(dirs, d.Angle...)
	var out []string
	existsOutside := false
	for _, dir := range dirs {
		p := filepath.Clean(filepath.Join(dir, filepath.FromSlash(name)))
		if t, ok := r.rel(p); ok {
			if r.files[t] {
				out = append(out, t)
			}
			continue
		}
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			existsOutside = true
		}
	}
	switch {
	case len(out) > 0:
		return out, true
	case spec[0] == '<', existsOutside:
		return nil, true // a system header, or another project's: an input
	}
	return nil, false
}

// forced returns the workspace files rel's compile command forces in.
func (r *includeResolver) forced(rel string) []string {
	_, forced := r.dirs(rel)
	var out []string
	for _, f := range forced {
		if t, ok := r.rel(f); ok && r.files[t] {
			out = append(out, t)
		}
	}
	return out
}

// rel returns abs relative to the workspace, when it is inside.
func (r *includeResolver) rel(abs string) (string, bool) {
	rel, err := filepath.Rel(r.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return path.Clean(filepath.ToSlash(rel)), true
}
