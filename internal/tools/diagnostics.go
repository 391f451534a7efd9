package tools

import (
	"context"
	_ "embed"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/workspace"
)

//go:embed descriptions/diagnostics.md
var diagnosticsDescription string

// maxDiagnosedFiles bounds one diagnostics call: pulling hundreds of files
// from a slow server would take longer than it helps.
const maxDiagnosedFiles = 200

// DiagnosticsParams are the arguments of diagnostics.
type DiagnosticsParams struct {
	Paths []string `json:"paths,omitempty" jsonschema:"files or directories to report on, relative to the workspace root; default the whole workspace"`
}

// FileDiagnostic is one diagnostic in a file.
type FileDiagnostic struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Severity string `json:"severity"`
	Code     string `json:"code,omitempty"`
	Source   string `json:"source,omitempty"`
	Message  string `json:"message"`
}

// DiagnosticsData is the structured result of diagnostics.
type DiagnosticsData struct {
	Checked     []string          `json:"checked"`
	Diagnostics []FileDiagnostic  `json:"diagnostics"`
	Unverified  map[string]string `json:"unverified,omitempty"` // path → why it was not checked
	Capped      bool              `json:"capped,omitempty"`
}

// Diagnostics reports the servers' current diagnostics.
type Diagnostics struct {
	root    *workspace.Root
	servers *servers.Manager
}

// NewDiagnostics returns the diagnostics tool.
func NewDiagnostics(root *workspace.Root, mgr *servers.Manager) *Diagnostics {
	return &Diagnostics{root: root, servers: mgr}
}

func (t *Diagnostics) Name() string        { return "diagnostics" }
func (t *Diagnostics) Description() string { return diagnosticsDescription }

func (t *Diagnostics) Run(ctx context.Context, p DiagnosticsParams) (Result, error) {
	if len(p.Paths) == 0 {
		p.Paths = []string{"."}
	}
	files, capped, res := t.sourceFiles(ctx, p.Paths)
	if res != nil {
		return *res, nil
	}
	data := DiagnosticsData{Checked: []string{}, Diagnostics: []FileDiagnostic{}, Capped: capped, Unverified: map[string]string{}}
	groups := map[*servers.Server][]string{}
	for _, rel := range files {
		srv, err := t.servers.ForFile(rel)
		if err != nil {
			data.Unverified[rel] = err.Error()
			continue
		}
		groups[srv] = append(groups[srv], rel)
	}
	for srv, rels := range groups {
		abs := make([]string, len(rels))
		for i, rel := range rels {
			abs[i] = t.root.Abs(rel)
		}
		got, err := srv.Diagnose(ctx, abs)
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			for _, rel := range rels {
				data.Unverified[rel] = fmt.Sprintf("%s: %s", srv.Spec().Name, firstLineOf(err))
			}
			continue
		}
		wanted := map[string]bool{}
		for _, a := range abs {
			wanted[a] = true
		}
		for path, ds := range got {
			if !wanted[path] {
				continue // other files a server reported on its own
			}
			rel, _ := t.root.Rel(path)
			data.Checked = append(data.Checked, rel)
			text, _ := t.root.ReadFile(rel)
			for _, d := range ds {
				if d.Severity > lsp.SeverityWarning {
					continue
				}
				data.Diagnostics = append(data.Diagnostics, FileDiagnostic{
					Path: rel, Line: d.Range.Start.Line + 1, Column: lsp.ByteColumn(text, d.Range.Start),
					Severity: d.Severity.String(), Code: d.CodeString(), Source: d.Source, Message: d.Message,
				})
			}
		}
		for _, rel := range rels {
			if !slices.Contains(data.Checked, rel) {
				data.Checked = append(data.Checked, rel) // checked, nothing to report
			}
		}
	}
	sort.Strings(data.Checked)
	sort.Slice(data.Diagnostics, func(i, j int) bool {
		a, b := data.Diagnostics[i], data.Diagnostics[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
	return Result{Output: formatDiagnostics(data), Data: data}, nil
}

// sourceFiles expands paths to the source files under them.
func (t *Diagnostics) sourceFiles(ctx context.Context, paths []string) ([]string, bool, *Result) {
	var files []string
	seen := map[string]bool{}
	capped := false
	add := func(rel string) {
		if !seen[rel] && servers.LanguageOf(rel) != "" {
			seen[rel] = true
			if len(files) < maxDiagnosedFiles {
				files = append(files, rel)
			} else {
				capped = true
			}
		}
	}
	for _, p := range paths {
		rp, err := t.root.Resolve(p)
		if err != nil {
			r := pathError(err)
			return nil, false, &r
		}
		info, err := t.root.Stat(rp.Rel)
		if err != nil {
			r := fileError(p, err)
			return nil, false, &r
		}
		if !info.IsDir() && !info.Mode().IsRegular() {
			// A FIFO named like source: a server reading it would block.
			r := Errorf("%s is not a regular file (%s); only files are checked", rp.Rel, info.Mode().Type())
			return nil, false, &r
		}
		if !info.IsDir() {
			if servers.LanguageOf(rp.Rel) == "" {
				r := Errorf("%s is not a source file a language server checks", rp.Rel)
				return nil, false, &r
			}
			add(rp.Rel)
			continue
		}
		err = t.root.Walk(ctx, rp, workspace.WalkOptions{}, func(e workspace.Entry) error {
			if e.Mode.IsRegular() {
				add(e.Rel)
			}
			return nil
		})
		if err != nil {
			r := Errorf("%v", err)
			return nil, false, &r
		}
	}
	return files, capped, nil
}

func formatDiagnostics(d DiagnosticsData) string {
	var b strings.Builder
	errs, warns := 0, 0
	for _, x := range d.Diagnostics {
		if x.Severity == "error" {
			errs++
		} else {
			warns++
		}
		code := ""
		if x.Code != "" {
			code = " [" + x.Code + "]"
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s%s: %s\n", x.Path, x.Line, x.Column, x.Severity, code, firstLineOf(fmt.Errorf("%s", x.Message)))
	}
	fmt.Fprintf(&b, "%d errors, %d warnings in %d checked files\n", errs, warns, len(d.Checked))
	if d.Capped {
		fmt.Fprintf(&b, "(only the first %d source files were checked; pass narrower paths)\n", maxDiagnosedFiles)
	}
	if len(d.Unverified) > 0 {
		var paths []string
		for p := range d.Unverified {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		fmt.Fprintf(&b, "not checked (%d):\n", len(paths))
		for _, p := range paths[:min(len(paths), 20)] {
			fmt.Fprintf(&b, "  %s: %s\n", p, d.Unverified[p])
		}
	}
	return b.String()
}
