// Package changeset describes a set of file changes proposed for a workspace:
// new contents, created files and deletions, each with the content it was
// based on. The shadow workspace validates a Set; the journal commits one.
package changeset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// Change is the proposed new state of one file.
type Change struct {
	// Path is slash-separated and relative to the workspace root.
	Path string
	// Content is the new content; ignored when Delete is set.
	Content []byte
	// Delete removes the file.
	Delete bool

	// Base is the file's content when the change was loaded, the state the
	// change was validated against; BaseExists is false for a new file.
	// The journal refuses to commit over a file that no longer matches.
	Base       []byte
	BaseExists bool
	// BaseMode is the file's permission bits, kept on commit.
	BaseMode fs.FileMode
}

// Created reports whether the change makes a file that does not exist yet.
func (c *Change) Created() bool { return !c.BaseExists && !c.Delete }

// Unchanged reports whether applying the change would leave the file as it is.
func (c *Change) Unchanged() bool {
	if c.Delete {
		return !c.BaseExists
	}
	return c.BaseExists && bytes.Equal(c.Content, c.Base)
}

// Set is an ordered set of changes, at most one per path.
type Set struct {
	changes map[string]*Change
}

// New returns an empty set.
func New() *Set { return &Set{changes: map[string]*Change{}} }

// Put adds or replaces the change for c.Path.
func (s *Set) Put(c *Change) { s.changes[c.Path] = c }

// Get returns the change for path, if any.
func (s *Set) Get(path string) (*Change, bool) {
	c, ok := s.changes[path]
	return c, ok
}

// Remove drops the change for path.
func (s *Set) Remove(path string) { delete(s.changes, path) }

// Len returns the number of changes.
func (s *Set) Len() int { return len(s.changes) }

// Changes returns the changes sorted by path.
func (s *Set) Changes() []*Change {
	out := make([]*Change, 0, len(s.changes))
	for _, c := range s.changes {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Paths returns the changed paths, sorted.
func (s *Set) Paths() []string {
	out := make([]string, 0, len(s.changes))
	for p := range s.changes {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Spec is the user-facing form of one change, as read from a change-set
// file: {"path": P, "content": S} or {"path": P, "delete": true}.
type Spec struct {
	Path    string  `json:"path"`
	Content *string `json:"content,omitempty"`
	Delete  bool    `json:"delete,omitempty"`
}

// Load resolves each spec inside root, reads the current content of its file
// as the change's base, and returns the set. Paths outside the root, a spec
// with both or neither of content and delete, a directory, a binary file and
// a duplicate path are errors.
func Load(root *workspace.Root, specs []Spec) (*Set, error) {
	s := New()
	var errs []error
	for i, sp := range specs {
		c, err := loadOne(root, sp)
		if err != nil {
			errs = append(errs, fmt.Errorf("change %d: %w", i+1, err))
			continue
		}
		if _, dup := s.changes[c.Path]; dup {
			errs = append(errs, fmt.Errorf("change %d: %s appears more than once", i+1, c.Path))
			continue
		}
		s.Put(c)
	}
	return s, errors.Join(errs...)
}

func loadOne(root *workspace.Root, sp Spec) (*Change, error) {
	if sp.Path == "" {
		return nil, errors.New("path is required")
	}
	if sp.Delete == (sp.Content != nil) {
		return nil, fmt.Errorf("%s: give exactly one of content and delete", sp.Path)
	}
	p, err := root.Resolve(sp.Path)
	if err != nil {
		return nil, err
	}
	if p.Rel == "." {
		return nil, fmt.Errorf("%s: the workspace root is not a file", sp.Path)
	}
	c := &Change{Path: p.Rel, Delete: sp.Delete}
	if sp.Content != nil {
		c.Content = []byte(*sp.Content)
	}
	if err := c.ReadBase(root); err != nil {
		return nil, err
	}
	if sp.Delete && !c.BaseExists {
		return nil, fmt.Errorf("%s: cannot delete a file that does not exist", p.Rel)
	}
	c.MatchLineEndings()
	return c, nil
}

// ReadBase records the file's current content, existence and mode as the
// change's base.
func (c *Change) ReadBase(root *workspace.Root) error {
	p, err := root.Resolve(c.Path)
	if err != nil {
		return err
	}
	info, err := os.Stat(p.Abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Base, c.BaseExists, c.BaseMode = nil, false, 0o644
		return nil
	case err != nil:
		return err
	case info.IsDir():
		return fmt.Errorf("%s is a directory", c.Path)
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", c.Path)
	}
	data, err := os.ReadFile(p.Abs)
	if err != nil {
		return err
	}
	if workspace.IsBinary(data) {
		return fmt.Errorf("%s is a binary file; Anvil only changes text files", c.Path)
	}
	c.Base, c.BaseExists, c.BaseMode = data, true, info.Mode().Perm()
	return nil
}

// Hash returns a short content hash used in journals and conflict checks.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// MatchLineEndings rewrites Content to use CRLF line endings when the base
// file does and the new content uses bare LF throughout, so a model that
// writes "\n" does not flip a Windows-style file.
func (c *Change) MatchLineEndings() {
	if c.Delete || !c.BaseExists || !bytes.Contains(c.Base, []byte("\r\n")) {
		return
	}
	if bytes.Contains(c.Content, []byte("\r\n")) || !bytes.Contains(c.Content, []byte("\n")) {
		return
	}
	c.Content = bytes.ReplaceAll(c.Content, []byte("\n"), []byte("\r\n"))
}
