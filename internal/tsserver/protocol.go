package tsserver

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/anvil-dev/anvil/internal/lsp"
)

// Location is a 1-based line and a 1-based offset in UTF-16 code units, as
// tsserver counts.
type Location struct {
	Line   int `json:"line"`
	Offset int `json:"offset"`
}

// position converts a tsserver location to an LSP position.
func (l Location) position() lsp.Position {
	return lsp.Position{Line: max(l.Line-1, 0), Character: max(l.Offset-1, 0)}
}

func locationOf(p lsp.Position) Location { return Location{Line: p.Line + 1, Offset: p.Character + 1} }

// Diagnostic is one diagnostic as tsserver reports it.
type Diagnostic struct {
	Start    Location `json:"start"`
	End      Location `json:"end"`
	Text     string   `json:"text"`
	Code     int      `json:"code"`
	Category string   `json:"category"` // "error", "warning", "suggestion", "message"
	Source   string   `json:"source,omitempty"`
}

// LSP converts d to an LSP diagnostic.
func (d Diagnostic) LSP() lsp.Diagnostic {
	sev := lsp.SeverityError
	switch d.Category {
	case "warning":
		sev = lsp.SeverityWarning
	case "suggestion":
		sev = lsp.SeverityHint
	case "message":
		sev = lsp.SeverityInformation
	}
	source := d.Source
	if source == "" {
		source = "ts"
	}
	return lsp.Diagnostic{
		Range:    lsp.Range{Start: d.Start.position(), End: d.End.position()},
		Severity: sev, Code: []byte(fmt.Sprint(d.Code)), Source: source, Message: d.Text,
	}
}

// OpenFile is a file to open: with Content as its text, or (nil) as on disk.
type OpenFile struct {
	File        string  `json:"file"`
	FileContent *string `json:"fileContent,omitempty"`
	// ProjectRootPath stops the search for its tsconfig.json at the
	// workspace root.
	ProjectRootPath string `json:"projectRootPath,omitempty"`
}

// CodeEdit replaces the text between two locations.
type CodeEdit struct {
	Start   Location `json:"start"`
	End     Location `json:"end"`
	NewText string   `json:"newText"`
}

// FileCodeEdits are the edits to one open file.
type FileCodeEdits struct {
	FileName    string     `json:"fileName"`
	TextChanges []CodeEdit `json:"textChanges"`
}

// Replace returns the edit that turns an open file whose text is old into
// one whose text is new, as one replacement of the whole text.
func Replace(file, old, new string) FileCodeEdits {
	return FileCodeEdits{FileName: file, TextChanges: []CodeEdit{{Start: Location{1, 1}, End: endOf(old), NewText: new}}}
}

// endOf is the location just past the last character of text, in
// tsserver's lines: TypeScript breaks a line at "\r\n", a lone "\r",
// "\n", U+2028 and U+2029 (computeLineStarts). A location past a line's
// end is clamped to it, so counting fewer breaks than tsserver does would
// leave the rest of the old text in place.
func endOf(text string) Location {
	line, start := 1, 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\r' && strings.HasPrefix(text[i+size:], "\n"):
			size++
			fallthrough
		case r == '\r', r == '\n', r == '\u2028', r == '\u2029':
			line++
			start = i + size
		}
		i += size
	}
	return Location{Line: line, Offset: 1 + utf16Len(text[start:])}
}

func utf16Len(s string) int {
	n := 0
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// UpdateOpen opens, changes and closes files in one request; tsserver
// applies the opens first, then the changes, then the closes.
func (c *Client) UpdateOpen(ctx context.Context, open []OpenFile, changed []FileCodeEdits, closed []string) error {
	args := map[string]any{}
	if len(open) > 0 {
		args["openFiles"] = open
	}
	if len(changed) > 0 {
		args["changedFiles"] = changed
	}
	if len(closed) > 0 {
		args["closedFiles"] = closed
	}
	return c.Request(ctx, "updateOpen", args, nil)
}

// Diagnostics returns the semantic and syntactic diagnostics of file, as
// computed against every change sent before, in project (a tsconfig.json
// path) or, if project is "", in the file's default project.
func (c *Client) Diagnostics(ctx context.Context, file, project string) ([]lsp.Diagnostic, error) {
	args := map[string]any{"file": file}
	if project != "" {
		args["projectFileName"] = project
	}
	// Both requests go out before either answer is read: tsserver answers
	// in order, and pipelining halves the round trips.
	type result struct {
		ds  []Diagnostic
		err error
	}
	syn, sem := make(chan result, 1), make(chan result, 1)
	for cmd, ch := range map[string]chan result{"syntacticDiagnosticsSync": syn, "semanticDiagnosticsSync": sem} {
		go func() {
			var ds []Diagnostic
			err := c.Request(ctx, cmd, args, &ds)
			ch <- result{ds, err}
		}()
	}
	var out []lsp.Diagnostic
	for _, ch := range []chan result{syn, sem} {
		r := <-ch
		if r.err != nil {
			return nil, r.err
		}
		for _, d := range r.ds {
			out = append(out, d.LSP())
		}
	}
	return out, nil
}

// ProjectInfo is what tsserver says of a file's default project.
type ProjectInfo struct {
	// ConfigFileName is the tsconfig.json of a configured project, or a
	// name starting with "/dev/null/inferredProject" for an inferred one
	// (a file no tsconfig.json includes).
	ConfigFileName string `json:"configFileName"`
	// LanguageServiceDisabled: tsserver gave up on the project (too much
	// JavaScript); it answers no diagnostics for it.
	LanguageServiceDisabled bool     `json:"languageServiceDisabled"`
	FileNames               []string `json:"fileNames"`
}

// Inferred reports whether the project is an inferred one.
func (p ProjectInfo) Inferred() bool {
	return p.ConfigFileName == "" || strings.HasPrefix(p.ConfigFileName, "/dev/null/")
}

// ProjectInfo returns the default project of file; with files, its file
// list too.
func (c *Client) ProjectInfo(ctx context.Context, file string, files bool) (ProjectInfo, error) {
	var info ProjectInfo
	err := c.Request(ctx, "projectInfo", map[string]any{"file": file, "needFileNameList": files}, &info)
	return info, err
}

// Contains reports whether the project of config (a tsconfig.json path)
// holds file.
func (c *Client) Contains(ctx context.Context, config, file string) bool {
	var info ProjectInfo
	err := c.Request(ctx, "projectInfo", map[string]any{"file": file, "projectFileName": config, "needFileNameList": false}, &info)
	return err == nil && info.ConfigFileName == config
}

// WatchChange reports disk changes to the watchers tsserver asked for
// (--canUseWatchEvents). It returns how many watchers were told.
func (c *Client) WatchChange(ctx context.Context, created, updated, deleted []string) (int, error) {
	type change struct {
		ID      int      `json:"id"`
		Created []string `json:"created,omitempty"`
		Updated []string `json:"updated,omitempty"`
		Deleted []string `json:"deleted,omitempty"`
	}
	var changes []change
	for id, w := range c.Watchers() {
		ch := change{ID: id, Created: w.match(created), Deleted: w.match(deleted)}
		if !w.IgnoreUpdate {
			ch.Updated = w.match(updated)
		}
		if len(ch.Created)+len(ch.Updated)+len(ch.Deleted) > 0 {
			changes = append(changes, ch)
		}
	}
	if len(changes) == 0 {
		return 0, nil
	}
	return len(changes), c.Notify(ctx, "watchChange", changes)
}

// match returns the paths w covers: the file itself, or a directory's
// entries (all of its tree, if recursive).
func (w Watcher) match(paths []string) []string {
	var out []string
	for _, p := range paths {
		switch {
		case !w.Directory:
			if p == w.Path {
				out = append(out, p)
			}
		case w.Recursive:
			if strings.HasPrefix(p, strings.TrimSuffix(w.Path, "/")+"/") {
				out = append(out, p)
			}
		default:
			if dir := p[:max(strings.LastIndexByte(p, '/'), 0)]; dir == strings.TrimSuffix(w.Path, "/") {
				out = append(out, p)
			}
		}
	}
	return out
}
