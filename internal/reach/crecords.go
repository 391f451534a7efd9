package reach

import (
	"context"

	"github.com/anvil-dev/anvil/internal/compiledb"
)

// CRecorder is the compilers' own record of what each C/C++ translation
// unit reads, on the disk as it is: its compile command run to write a
// make-style dependency file (-M -MG), sealed like every compile
// (shadow.Validator.CIncludes). units are workspace-relative sources;
// the answer maps each recorded unit to the files it read, absolute
// paths. Like pyright's, it is taken beside Anvil's reading of the
// includes and can only add an includer: a unit the record leaves out
// (no compile command, a compiler the policy does not let run) keeps
// Anvil's reading alone.
type CRecorder interface {
	CIncludes(ctx context.Context, units []string) (map[string][]string, error)
}

// WithC has the graph take the compilers' record of what translation
// units read beside its own reading of the includes (nil: none).
func (g *Graph) WithC(r CRecorder) *Graph {
	g.cRecords = r
	return g
}

// cShape is the shape of files a C record is made for: the C/C++ files
// by name, the compile databases by stat. A later state of the same
// shape keeps the record: an unchanged unit reads what it read (short of
// a directive changed since, which Anvil's reading sees).
func cShape(files Files) [32]byte {
	return recordShape(files, "c", "compile_commands.json", "compile_flags.txt")
}

// cUnits returns the translation units' sources among files.
func cUnits(files Files) []string {
	var units []string
	for _, rel := range files.Sorted() {
		if Family(rel) == "c" && compiledb.IsSource(rel) {
			units = append(units, rel)
		}
	}
	return units
}

// CStale reports whether RefreshC would make a record for files: a
// recorder is set, the files hold a translation unit, and no record was
// made (or failed) for their shape.
func (g *Graph) CStale(files Files) bool {
	return g.cRecords != nil && len(cUnits(files)) > 0 && g.cRecorded.stale(cShape(files))
}

// RefreshC makes the compilers' record for files (the disk as it is)
// unless the one kept is of their shape; for a background job.
func (g *Graph) RefreshC(ctx context.Context, files Files) {
	units := cUnits(files)
	if g.cRecords == nil || len(units) == 0 {
		return
	}
	g.cRecorded.refresh(ctx, cShape(files), func(ctx context.Context) (map[string][]string, error) {
		read, err := g.cRecords.CIncludes(ctx, units)
		if err != nil {
			return nil, err
		}
		return g.relEdges(files, read), nil
	})
}

// CRecorded returns the files the compilers' record kept says the unit
// rel reads (workspace-relative; nil without one): who else compiles a
// changed file with it, for the includers' plan.
func (g *Graph) CRecorded(rel string) []string {
	return g.cRecorded.get()[rel]
}
