package shadow

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/anvil-dev/anvil/internal/compiledb"
	"github.com/anvil-dev/anvil/internal/depfile"
	"github.com/anvil-dev/anvil/internal/reach"
)

// cIncludesBound bounds one record of what the translation units read: a
// preprocessing of every unit, seconds on a real project.
const cIncludesBound = 2 * time.Minute

// CIncludes is the compilers' record of what each translation unit of
// units (workspace-relative sources) reads on the disk as it is
// (reach.CRecorder): each unit's own compile command, changed to only
// preprocess and write a dependency file (-M -MG), run sealed like the
// includers' compile, bounded by cIncludesBound. A unit without a
// compile command, or whose compiler or flags the policy does not let
// run, is left out: Anvil's reading alone finds its includes. It runs at
// a low priority: no check waits for it. A unit whose preprocessing fails
// still gives what its dependency file lists, if it wrote one: every
// file listed was read.
func (v *Validator) CIncludes(ctx context.Context, units []string) (map[string][]string, error) {
	ctx, cancel := context.WithTimeout(ctx, cIncludesBound)
	defer cancel()
	dbs := compileDatabases{}
	var cmds []compiledb.Command
	for _, rel := range units {
		abs := v.root.Abs(rel)
		db, err := dbs.forFile(abs)
		if err != nil {
			continue // no database, or one that cannot be read: no record
		}
		if cmd, ok := db.For(abs); ok && v.compilerAllowed(cmd) == nil {
			cmds = append(cmds, cmd)
		}
	}
	if len(cmds) == 0 {
		return map[string][]string{}, nil
	}
	out, err := v.runUnits(ctx, cmds, nil, func(u compiledb.Command, scratch string) []string { return u.Dependencies(scratch + ".d") }, `"$out/$i.d"`, true)
	if err != nil {
		return nil, err
	}
	return parseDependencyOutput(cmds, out)
}

// parseDependencyOutput reads a dependency run's output: each unit's
// dependency file, then its marker line. A unit whose file is missing or
// unreadable records nothing.
func parseDependencyOutput(units []compiledb.Command, out []byte) (map[string][]string, error) {
	sections, err := splitUnits(out, len(units))
	if err != nil {
		return nil, fmt.Errorf("the dependency run: %w", err)
	}
	read := map[string][]string{}
	for i, sec := range sections {
		u := units[i]
		rules, err := depfile.Parse([]byte(strings.Join(sec.lines, "\n")))
		if err != nil {
			continue
		}
		for _, p := range depfile.Prereqs(rules) {
			if !filepath.IsAbs(p) {
				p = filepath.Join(u.Dir, p)
			}
			if p = filepath.Clean(p); p != u.File && !slices.Contains(read[u.File], p) {
				read[u.File] = append(read[u.File], p)
			}
		}
	}
	return read, nil
}

// cRefresher is a DependantFinder that keeps the compilers' record of
// what translation units read, made in the background (reach.Graph).
type cRefresher interface {
	CStale(files reach.Files) bool
	RefreshC(ctx context.Context, files reach.Files)
}

// cRecordJob names the background job that makes the compilers' record.
const cRecordJob = "the compilers' record"

// cRecordReader is a DependantFinder that keeps the compilers' record of
// what each unit reads (reach.Graph).
type cRecordReader interface {
	CRecorded(rel string) []string
}

// recordedReads returns the files the compilers' record kept says the
// unit rel reads; nil without one.
func (v *Validator) recordedReads(rel string) []string {
	if r, ok := v.deps.(cRecordReader); ok {
		return r.CRecorded(rel)
	}
	return nil
}
