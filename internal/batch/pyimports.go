package batch

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/sandbox"
)

// Imports is pyright's record of the imports it resolved for the project
// pyright runs in (absolute: the directory, as Check takes it), on the
// tree as it is on disk: each importer's absolute path → the files it
// imports (absolute; the standard library's stubs and installed packages
// among them). It runs `pyright --dependencies --verbose` sealed like
// every batch run, at a low priority (it is made ahead of need), and
// fails when the run cannot be had or read.
func (c *Checker) Imports(ctx context.Context, project string) (map[string][]string, error) {
	if c.tool.Kind != Pyright {
		return nil, fmt.Errorf("%s keeps no record of imports", c.tool.Label)
	}
	if c.policy == nil {
		return nil, errors.New("no execution policy to run " + c.tool.Label + " with")
	}
	dir, err := filepath.Rel(c.root, project)
	if err != nil {
		return nil, err
	}
	argv := append(slices.Clone(c.tool.Argv), "--dependencies", "--verbose")
	spec := c.policy.Sealed(sandbox.Spec{Root: c.root, Argv: argv, Dir: filepath.ToSlash(dir), Env: slices.Clone(c.tool.Env), OutputLimit: 64 << 20, Background: true})
	res, err := sandbox.Run(ctx, spec)
	switch {
	case err != nil:
		return nil, err
	case res.Killed && ctx.Err() != nil:
		return nil, ctx.Err()
	case res.Killed:
		return nil, errors.New("killed")
	case res.Truncated:
		return nil, fmt.Errorf("its output passed %d MiB", 64)
	}
	imports, complete := ParsePyrightImports(res.Output, project)
	if !complete {
		return nil, fmt.Errorf("%s printed no record of imports (exit %d): %s", c.tool.Label, res.ExitCode, firstLine(string(res.Output)))
	}
	return imports, nil
}

// ParsePyrightImports reads `pyright --dependencies --verbose`: after the
// diagnostics, for each file of the program (its path relative to the
// project directory) an "Imports" and an "Imported by" list of file URIs.
// Both lists give edges (importer → imported, absolute). complete says
// the record was printed (pyright's "N files not explicitly imported"
// closes it); a run cut short is no record.
func ParsePyrightImports(out []byte, project string) (imports map[string][]string, complete bool) {
	imports = map[string][]string{}
	add := func(from, to string) {
		if !slices.Contains(imports[from], to) {
			imports[from] = append(imports[from], to)
		}
	}
	const (
		none = iota
		importsList
		importedByList
	)
	current, list := "", none
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case strings.HasPrefix(line, "    file://"):
			target, ok := fileURI(strings.TrimSpace(line))
			switch {
			case !ok || current == "":
			case list == importsList:
				add(current, target)
			case list == importedByList:
				add(target, current)
			}
		case strings.HasPrefix(line, " Imports "):
			list = importsList
		case strings.HasPrefix(line, " Imported by "):
			list = importedByList
		case strings.HasSuffix(line, " files not explicitly imported") || strings.HasSuffix(line, " file not explicitly imported"):
			complete = true
			current, list = "", none
		case line != "" && !strings.HasPrefix(line, " ") && (strings.HasSuffix(line, ".py") || strings.HasSuffix(line, ".pyi")):
			// A file of the program: its lists follow.
			current, list = line, none
			if !filepath.IsAbs(current) {
				current = filepath.Join(project, filepath.FromSlash(current))
			}
		default:
			list = none
		}
	}
	return imports, complete && sc.Err() == nil
}

// fileURI is the absolute path a file:// URI names.
func fileURI(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "file" || !filepath.IsAbs(u.Path) {
		return "", false
	}
	return filepath.Clean(u.Path), true
}
