// Package workspace confines Anvil's file access to one directory tree.
//
// Every path a user or a model hands to Anvil goes through [Root.Resolve],
// which follows symlinks and refuses anything that ends up outside the root.
// The package also owns the ignore rules (.gitignore files, .git/info/exclude
// and .anvil/ignore) and the walk that honours them, so that listing,
// searching and parsing all see the same set of files.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutside is returned (wrapped in a [*PathError]) for a path that leaves
// the workspace root, directly or through a symlink.
var ErrOutside = errors.New("outside the workspace")

// PathError records a path that could not be resolved and why. Its message is
// written for a model or a user to act on.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *PathError) Unwrap() error { return e.Err }

// Root is a workspace directory. Its zero value is not usable; call [New].
type Root struct {
	dir string // absolute, symlinks resolved
	id  ID     // the directory's identity when opened
	rootHandles
}

// New returns the workspace rooted at dir, which must be an existing directory.
func New(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("workspace %s: not a directory", dir)
	}
	return &Root{dir: real, id: idOf(info)}, nil
}

// Dir returns the absolute, symlink-free path of the root.
func (r *Root) Dir() string { return r.dir }

// ID returns the identity of the directory the root was opened on.
func (r *Root) ID() ID { return r.id }

// Replaced returns an error, [*ReplacedError], when the directory at the
// root's path is no longer the one it was opened on (removed, moved away,
// or replaced by another at the same path: a fresh clone, a regenerated
// tree). A workspace is its directory, not its path: nothing computed for
// the old directory may answer for the new one.
func (r *Root) Replaced() error {
	info, err := os.Stat(r.dir)
	if err != nil {
		return &ReplacedError{Dir: r.dir, Why: "it is gone: " + err.Error()}
	}
	if now := idOf(info); now != r.id {
		return &ReplacedError{Dir: r.dir, Why: fmt.Sprintf("another directory is at its path now (%s, was %s)", now, r.id)}
	}
	return nil
}

// ID identifies a directory for as long as it exists: its device and
// inode. A directory removed and created again at the same path has
// another.
type ID struct {
	Dev, Ino uint64
}

func (id ID) String() string { return fmt.Sprintf("%d:%d", id.Dev, id.Ino) }

// IsZero reports whether id is unknown.
func (id ID) IsZero() bool { return id == ID{} }

// ParseID reads an ID written by [ID.String].
func ParseID(s string) (ID, error) {
	var id ID
	if _, err := fmt.Sscanf(s, "%d:%d", &id.Dev, &id.Ino); err != nil {
		return ID{}, fmt.Errorf("bad directory identity %q", s)
	}
	return id, nil
}

// InfoID returns the identity of the file info describes.
func InfoID(info fs.FileInfo) ID { return idOf(info) }

// IDOf returns the identity of the directory at path.
func IDOf(path string) (ID, error) {
	info, err := os.Stat(path)
	if err != nil {
		return ID{}, err
	}
	return idOf(info), nil
}

// ReplacedError says a workspace's directory is not the one it was opened
// on.
type ReplacedError struct {
	Dir string
	Why string
}

func (e *ReplacedError) Error() string {
	return fmt.Sprintf("the workspace %s was replaced since it was opened: %s", e.Dir, e.Why)
}

// IsReplaced reports whether err is a [*ReplacedError].
func IsReplaced(err error) bool {
	var r *ReplacedError
	return errors.As(err, &r)
}

// Path is a location inside the workspace.
type Path struct {
	Abs string // absolute, symlinks resolved
	Rel string // slash-separated, relative to the root; "." for the root itself
}

// Resolve maps p, relative to the root or absolute, to a location inside the
// workspace. Symlinks are followed, including in a missing path's existing
// ancestors, so a link that points out of the root is refused like "..".
// The path need not exist.
func (r *Root) Resolve(p string) (Path, error) {
	if strings.ContainsRune(p, 0) {
		return Path{}, &PathError{Path: p, Err: errors.New("path contains a NUL byte")}
	}
	if p == "" {
		p = "."
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r.dir, abs)
	}
	abs = filepath.Clean(abs)
	// Check the lexical path first: a path that names a location outside the
	// root is refused even if a symlink would bring it back in.
	if !r.contains(abs) {
		// An absolute path may spell the root through a symlink (e.g. /tmp
		// vs /private/tmp); accept it only if it resolves inside.
		if !filepath.IsAbs(p) {
			return Path{}, &PathError{Path: p, Err: ErrOutside}
		}
	}
	real, err := evalExisting(abs)
	if err != nil {
		return Path{}, &PathError{Path: p, Err: err}
	}
	if !r.contains(real) {
		return Path{}, &PathError{Path: p, Err: ErrOutside}
	}
	return Path{Abs: real, Rel: r.rel(real)}, nil
}

// Abs returns the absolute path of rel, a slash-separated path relative to
// the root that came from [Root.Resolve] or a walk. It does not confine rel:
// paths from elsewhere go through Resolve.
func (r *Root) Abs(rel string) string {
	return filepath.Join(r.dir, filepath.FromSlash(rel))
}

// Rel returns abs relative to the root, slash-separated, or an error if abs
// is not inside the root. abs is taken as is: symlinks are not followed.
func (r *Root) Rel(abs string) (string, error) {
	abs = filepath.Clean(abs)
	if !r.contains(abs) {
		return "", &PathError{Path: abs, Err: ErrOutside}
	}
	return r.rel(abs), nil
}

func (r *Root) rel(abs string) string {
	rel, err := filepath.Rel(r.dir, abs)
	if err != nil { // unreachable: both are absolute and abs is inside dir
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

func (r *Root) contains(abs string) bool {
	if abs == r.dir {
		return true
	}
	prefix := r.dir
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(abs, prefix)
}

// evalExisting resolves symlinks in abs. When abs does not exist, it resolves
// the deepest existing ancestor and appends the rest, so that a new file under
// a symlinked directory is judged by where it would really be written.
func evalExisting(abs string) (string, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	// A dangling symlink must not be created through: refuse it by resolving
	// its target lexically.
	if target, lerr := os.Readlink(abs); lerr == nil {
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(abs), target)
		}
		return evalExisting(filepath.Clean(target))
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs, nil
	}
	realParent, err := evalExisting(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(realParent, filepath.Base(abs)), nil
}
