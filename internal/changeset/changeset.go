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
	"sort"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"

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
	Path    string  `json:"path" jsonschema:"file path, relative to the workspace root"`
	Content *string `json:"content,omitempty" jsonschema:"the file's whole new content (omit with delete)"`
	Delete  bool    `json:"delete,omitempty" jsonschema:"true to delete the file (omit content)"`
	// BaseSHA256, if set, is the SHA-256 (hex) of the content the change
	// was made from, or "absent" for a file that did not exist: a change
	// set computed earlier (rename_symbol's) is refused if the file has
	// changed since, rather than written over a later edit.
	BaseSHA256 string `json:"base_sha256,omitempty" jsonschema:"optional: SHA-256 (hex) of the content the change was made from, or absent for a new file; the change is refused if the file has changed since"`
}

// Absent is the BaseSHA256 of a file that does not exist.
const Absent = "absent"

// StaleError names files that no longer have the content their change was
// made from.
type StaleError struct{ Paths []string }

func (e *StaleError) Error() string {
	return fmt.Sprintf("changed since the change set was made (base_sha256 differs): %s", strings.Join(e.Paths, ", "))
}

// Load resolves each spec inside root, reads the current content of its file
// as the change's base, and returns the set. Paths outside the root, a spec
// with both or neither of content and delete, a directory, a binary file and
// a duplicate path are errors.
func Load(root *workspace.Root, specs []Spec) (*Set, error) {
	s := New()
	var errs []error
	stale := &StaleError{}
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
		if sp.BaseSHA256 != "" && sp.BaseSHA256 != c.BaseHash() {
			stale.Paths = append(stale.Paths, c.Path)
		}
		s.Put(c)
	}
	if len(stale.Paths) > 0 {
		errs = append(errs, stale)
	}
	return s, errors.Join(errs...)
}

// BaseHash is what a Spec's BaseSHA256 names for this change: the hash of
// its base, or [Absent].
func (c *Change) BaseHash() string {
	if !c.BaseExists {
		return Absent
	}
	return Hash(c.Base)
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
	if err := workspace.CheckWritable(p.Rel); err != nil {
		return nil, err
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
	info, err := root.Stat(p.Rel)
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
	data, err := root.ReadFile(p.Rel)
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

// MatchLineEndings gives the new content the line endings of its base
// where the content has none of its own: a model writes "\n", and a file
// with "\r\n" lines must not change in every line for it. When the base
// uses "\r\n" throughout, every line gets it; when it mixes both, each
// line keeps the ending of the base line it corresponds to (by a line
// diff), and a new line takes the ending of the line before it. Content
// that has "\r\n" itself, or a base without any, is left as it is.
func (c *Change) MatchLineEndings() {
	if c.Delete || !c.BaseExists || !bytes.Contains(c.Base, crlf) {
		return
	}
	if bytes.Contains(c.Content, crlf) || !bytes.Contains(c.Content, []byte("\n")) {
		return
	}
	if bytes.Count(c.Base, crlf) == bytes.Count(c.Base, []byte("\n")) {
		c.Content = bytes.ReplaceAll(c.Content, []byte("\n"), crlf)
		return
	}
	c.Content = keepEndings(c.Base, c.Content)
}

var crlf = []byte("\r\n")

// keepEndings returns content (all "\n") with each line ending as in the
// base line it aligns with.
func keepEndings(base, content []byte) []byte {
	var baseText []string
	var baseCR []bool
	for _, l := range strings.SplitAfter(string(base), "\n") {
		if l == "" {
			continue
		}
		cr := strings.HasSuffix(l, "\r\n")
		baseCR = append(baseCR, cr)
		baseText = append(baseText, strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")+"\n")
	}
	lines := strings.SplitAfter(string(content), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	// cr[i]: whether new line i ends in \r\n; aligned lines copy the base.
	cr := make([]bool, len(lines))
	aligned := make([]bool, len(lines))
	prevOld, prevNew := 0, 0
	mark := func(oldEnd, newEnd int) { // equal stretch: old[prevOld:oldEnd] = new[prevNew:newEnd]
		for k := 0; prevNew+k < newEnd && prevOld+k < oldEnd; k++ {
			cr[prevNew+k], aligned[prevNew+k] = baseCR[prevOld+k], true
		}
	}
	for _, d := range lcs.DiffLines(baseText, lines) {
		mark(d.Start, d.ReplStart)
		prevOld, prevNew = d.End, d.ReplEnd
	}
	mark(len(baseText), len(lines))
	var b bytes.Buffer
	for i, l := range lines {
		if !aligned[i] && i > 0 {
			cr[i] = cr[i-1]
		} else if !aligned[i] && len(baseCR) > 0 {
			cr[i] = baseCR[0]
		}
		if cr[i] && strings.HasSuffix(l, "\n") {
			l = strings.TrimSuffix(l, "\n") + "\r\n"
		}
		b.WriteString(l)
	}
	return b.Bytes()
}
