package gatefuzz

import "math/rand/v2"

// Errors already on disk. A project whose files hold an error before the
// edit is where a gate pairs: the checker repeats the old error after the
// edit, perhaps beside a new one with the same words, perhaps with the
// old one gone and a new one in its place, and only a pairing that counts
// what is new tells them apart. Real projects often hold such errors; the
// generated ones, valid by construction, never would.
//
// The error is a stale use: one use an importer makes of a declaration,
// written against a type the declaration does not have (the declaration's
// other uses stay valid). It comes in rounds of its own (onDiskRound),
// not in every round, because some batch checkers answer for a whole
// workspace at once and stop, or say nothing of importers, where one
// project has an error (go vet prints a package's first type error and
// vets no importer of it; cargo compiles no crate that depends on one
// that failed): in the other rounds their routes are still exercised.

// onDiskBlock is how many consecutive trials share one decision: a
// campaign round's worth, when rounds are of the default size.
const onDiskBlock = 40

// onDiskRound says whether trial i may hold an error on disk: every other
// block of trials, so that a campaign of a few hundred has both kinds.
func onDiskRound(i int) bool { return (i/onDiskBlock)%2 == 1 }

// staleUse places at most one stale use in a project.
type staleUse struct {
	wanted, placed bool
}

// newStaleUse decides whether a project of a round with errors on disk
// gets one.
func newStaleUse(r *rand.Rand, onDisk bool) *staleUse {
	return &staleUse{wanted: onDisk && chance(r, 0.6)}
}

// place reports whether the use about to be written should also be
// written stale; it says yes at most once.
func (s *staleUse) place(r *rand.Rand) bool {
	if !s.wanted || s.placed || !chance(r, 0.5) {
		return false
	}
	s.placed = true
	return true
}
