package shadow

import (
	"context"

	"github.com/anvil-dev/anvil/internal/reach"
)

// typeScriptRefresher is a DependantFinder that keeps TypeScript's record
// of the projects' imports, made again in the background for each disk
// state (reach.Graph).
type typeScriptRefresher interface {
	TypeScriptStale(files reach.Files) bool
	RefreshTypeScript(ctx context.Context, files reach.Files)
}

// tsRecordJob names the background job that makes TypeScript's record.
const tsRecordJob = "TypeScript's record"

// refreshRecords starts, in the background, the records of imports for
// the disk as snap saw it that are not kept yet: TypeScript's (a program
// of every project, seconds on a real project: the next check takes the
// record kept meanwhile, with the files changed since as unrecorded) and
// pyright's (a whole pyright run) and the compilers' of what C/C++
// translation units read (a preprocessing of each). One job per record, superseded by the
// next disk state's, shown by 'anvil serve status'. A one-shot request
// starts none: nothing would take them.
func (v *Validator) refreshRecords(snap *Snapshot) {
	if v.opts.OneRequest {
		return
	}
	if r, ok := v.deps.(typeScriptRefresher); ok && r.TypeScriptStale(snap.Files) {
		v.work.run(v.bg, tsRecordJob, "the compiler's program of each project", snap.Fingerprint, "TypeScript's record of imports, for the next check's dependants", []string{"."}, v.opts.LoadTimeout,
			func(ctx context.Context, _ string) { r.RefreshTypeScript(ctx, snap.Files) })
	}
	if r, ok := v.deps.(cRefresher); ok && r.CStale(snap.Files) {
		v.work.run(v.bg, cRecordJob, "each translation unit's compile command with -M", snap.Fingerprint, "what each C/C++ translation unit reads, for the next check's includers", []string{"."}, cIncludesBound,
			func(ctx context.Context, _ string) { r.RefreshC(ctx, snap.Files) })
	}
	if r, ok := v.deps.(pythonRefresher); ok && r.PythonStale(snap.Files) {
		v.work.run(v.bg, pyRecordJob, "pyright --dependencies", snap.Fingerprint, "pyright's record of imports, for the next check's dependants", []string{"."}, pyImportsBound,
			func(ctx context.Context, _ string) { r.RefreshPython(ctx, snap.Files) })
	}
}
