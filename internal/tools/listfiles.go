package tools

import (
	"context"
	_ "embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/anvil-dev/anvil/internal/workspace"
)

//go:embed descriptions/list_files.md
var listFilesDescription string

// listMaxEntries caps one listing; listCountLimit bounds how far the walk
// goes on to count what was left out, so a huge tree still answers quickly.
const (
	listMaxEntries = 500
	listCountLimit = 100_000
)

// ListFilesParams are the arguments of list_files.
type ListFilesParams struct {
	Path     string `json:"path,omitempty" jsonschema:"directory to list, relative to the workspace root; default the root"`
	Pattern  string `json:"pattern,omitempty" jsonschema:"glob filter relative to path, e.g. **/*.ts or src/*/index.js; a pattern without / matches file names at any depth"`
	MaxDepth int    `json:"max_depth,omitempty" jsonschema:"levels below path to descend; 1 lists only direct children; default unlimited"`
}

// ListEntry is one listed file or directory.
type ListEntry struct {
	Path string `json:"path"` // relative to the workspace root, slash-separated
	Type string `json:"type"` // "file", "dir" or "symlink"
}

// ListFilesData is the structured result of list_files.
type ListFilesData struct {
	Path    string      `json:"path"`
	Entries []ListEntry `json:"entries"`
	Total   int         `json:"total"`   // entries found (at most listCountLimit)
	More    int         `json:"more"`    // entries found but not listed
	Partial bool        `json:"partial"` // counting stopped at the limit
}

// ListFiles lists workspace files, honouring the ignore rules.
type ListFiles struct {
	root *workspace.Root
}

// NewListFiles returns the list_files tool for root.
func NewListFiles(root *workspace.Root) *ListFiles { return &ListFiles{root: root} }

func (t *ListFiles) Name() string        { return "list_files" }
func (t *ListFiles) Description() string { return listFilesDescription }

func (t *ListFiles) Run(ctx context.Context, p ListFilesParams) (Result, error) {
	if p.MaxDepth < 0 {
		return Errorf("max_depth must be positive"), nil
	}
	if p.Pattern != "" && !doublestar.ValidatePattern(p.Pattern) {
		return Errorf("invalid pattern %q: check brackets and braces", p.Pattern), nil
	}
	start, err := t.root.Resolve(p.Path)
	if err != nil {
		return pathError(err), nil
	}
	info, err := os.Stat(start.Abs)
	if err != nil {
		return fileError(displayPath(p.Path), err), nil
	}
	if !info.IsDir() {
		return Errorf("%s is a file, not a directory; use read_file to read it", start.Rel), nil
	}

	match := globMatcher(p.Pattern)
	data := ListFilesData{Path: start.Rel, Entries: []ListEntry{}}
	err = t.root.Walk(ctx, start, workspace.WalkOptions{MaxDepth: p.MaxDepth}, func(e workspace.Entry) error {
		below := e.Rel
		if start.Rel != "." {
			below = strings.TrimPrefix(e.Rel, start.Rel+"/")
		}
		if !match(below, e.IsDir()) {
			return nil
		}
		data.Total++
		if len(data.Entries) < listMaxEntries {
			data.Entries = append(data.Entries, ListEntry{Path: e.Rel, Type: entryType(e.Mode)})
		}
		if data.Total >= listCountLimit {
			data.Partial = true
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	data.More = data.Total - len(data.Entries)
	return Result{Output: formatList(data, p.Pattern), Data: data}, nil
}

// globMatcher returns the filter for pattern. Without a pattern every entry
// passes; with one, only files do, so a listing for "**/*.ts" is not padded
// with the directories on the way. A pattern without "/" is matched against
// base names, which is what "*.go" means to most people.
func globMatcher(pattern string) func(rel string, isDir bool) bool {
	if pattern == "" {
		return func(string, bool) bool { return true }
	}
	baseOnly := !strings.Contains(pattern, "/")
	return func(rel string, isDir bool) bool {
		if isDir {
			return false
		}
		if baseOnly {
			rel = path.Base(rel)
		}
		ok, _ := doublestar.Match(pattern, rel)
		return ok
	}
}

func entryType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "dir"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	default:
		return "file"
	}
}

func formatList(d ListFilesData, pattern string) string {
	var b strings.Builder
	if len(d.Entries) == 0 {
		if pattern != "" {
			fmt.Fprintf(&b, "no files under %s match %q\n", d.Path, pattern)
		} else {
			fmt.Fprintf(&b, "%s is empty (or everything in it is ignored)\n", d.Path)
		}
		return b.String()
	}
	for _, e := range d.Entries {
		b.WriteString(e.Path)
		if e.Type == "dir" {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	switch {
	case d.Partial:
		fmt.Fprintf(&b, "... and more than %d others; narrow with path, pattern or max_depth\n", d.More)
	case d.More > 0:
		fmt.Fprintf(&b, "... and %d more; narrow with path, pattern or max_depth\n", d.More)
	}
	return b.String()
}

func displayPath(p string) string {
	if p == "" {
		return "."
	}
	return p
}
