package shadow

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/compiledb"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/servers"
)

// A change to compile_commands.json changes every translation unit's
// flags (a define, an include directory, a forced header), and clangd
// reads the database only from disk. So every unit of the changed
// database is compiled with its new command and -fsyntax-only in a
// shadow tree holding the change, beside every unit of the database on
// disk compiled as it is: the compiler the database names is the checker
// either side.

// databaseChange returns the group's change to a compile_commands.json,
// nil when it has none.
func databaseChange(g *group) *changeset.Change {
	for _, c := range g.changes {
		if path.Base(c.Path) == compiledb.CommandsFile {
			return c
		}
	}
	return nil
}

// checkDatabaseChange checks a group that changes the compile database:
// every unit before and after. parent bounds the compiles, by the load
// timeout.
func (v *Validator) checkDatabaseChange(parent context.Context, snap *Snapshot, g *group, db *changeset.Change) (servers.CheckResult, string, error) {
	cr := servers.CheckResult{Before: map[string][]lsp.Diagnostic{}, After: map[string][]lsp.Diagnostic{}}
	if db.Delete {
		return cr, "", &unverifiableError{fmt.Sprintf("%s is deleted, and clangd then guesses every file's flags: nothing compiles the units as the project does", db.Path)}
	}
	abs := v.root.Abs(db.Path)
	before, err := compiledb.Load(abs)
	if err != nil {
		return cr, "", &unverifiableError{fmt.Sprintf("the compile database on disk cannot be read (%v), so nothing compiles the units before the change", err)}
	}
	after, err := compiledb.Parse(abs, db.Content)
	if err != nil {
		return cr, "", &unverifiableError{fmt.Sprintf("the changed compile database does not read: %v", err)}
	}
	base, changed, stopped, err := v.compileEitherSide(parent, snap, g, before.Commands, after.Commands)
	if err != nil {
		return cr, "", err
	}
	cr.Before, cr.After, cr.Stopped = base, changed, stopped
	for _, u := range after.Commands {
		cr.After[u.File] = orEmpty(cr.After[u.File])
	}
	recompiled(&cr, base)
	cr.Checked = slices.Sorted(maps.Keys(cr.After))
	compiler := "the compiler"
	if len(after.Commands) > 0 {
		compiler = path.Base(after.Commands[0].Args[0])
	}
	return cr, fmt.Sprintf("%s -fsyntax-only in a shadow tree for every translation unit of the changed compile database (%d), beside the database on disk's (%d)", compiler, len(after.Commands), len(before.Commands)), nil
}
