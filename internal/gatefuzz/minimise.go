package gatefuzz

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
)

// Minimise reduces a disagreement to what it needs: alone in a workspace
// of its own, each file of the project the edit does not touch, then each
// change of the edit, is dropped while the trial keeps its class (a
// delta-debugging pass to a fixpoint, one file at a time: the projects
// are small). It returns the reduced trial and whether the disagreement
// reproduced alone at all; a trial that does not is returned as it was.
func Minimise(ctx context.Context, l Language, open OpenGate, dir string, o *Outcome) (*Trial, bool, error) {
	runs := 0
	reproduces := func(t *Trial) (bool, error) {
		runs++
		outs, err := Judge(ctx, truthOnly{l}, open, filepath.Join(dir, fmt.Sprintf("try%03d", runs)), []*Trial{t})
		if err != nil {
			return false, err
		}
		return outs[0].Class == o.Class, nil
	}
	cur := *o.Trial
	cur.Name = "t000"
	ok, err := reproduces(&cur)
	if err != nil || !ok {
		return o.Trial, false, err
	}
	for changed := true; changed; {
		changed = false
		for _, p := range sortedKeys(cur.Project) {
			if _, edited := cur.Edit[p]; edited {
				continue
			}
			next := cur
			next.Project = maps.Clone(cur.Project)
			delete(next.Project, p)
			if ok, err := reproduces(&next); err != nil {
				return nil, true, err
			} else if ok {
				cur, changed = next, true
			}
		}
		if len(cur.Edit) < 2 {
			continue
		}
		for _, p := range cur.Edit.Paths() {
			next := cur
			next.Edit = maps.Clone(cur.Edit)
			delete(next.Edit, p)
			if ok, err := reproduces(&next); err != nil {
				return nil, true, err
			} else if ok {
				cur, changed = next, true
			}
		}
	}
	return &cur, true, nil
}

func sortedKeys(f Files) []string { return slices.Sorted(maps.Keys(f)) }
