// Package gatefuzz holds the gate to its batch checkers by generation: it
// writes random small projects from a grammar of each language's
// constructs, makes a random edit to each, and asks both the gate and the
// project's batch checker (tsc, the pyright command line, go build and go
// vet) whether the edit introduces an error. The batch checker is the
// truth. A trial where the gate says clean and the checker finds a new
// error is a false clean, the failure the gate exists to prevent; a
// rejection the checker does not confirm is a false reject; an unverified
// verdict is counted with its cause. TypeScript has a second compiler:
// TypeScript 6's tsc runs beside 7's over the same projects, and a trial
// where their errors differ is a compiler disagreement, counted apart (7
// stays the truth), since Anvil checks projects pinned to 6 with 7.
//
// Many trials share one workspace and one run of each checker: every
// project lives in a folder of its own (t000/, t001/, …) that no other
// project reads, the checker runs once on all projects before and once
// with every edit applied, and the gate judges each edit through one warm
// service. A disagreement is then minimised on a workspace of its own
// (files of the project and changes of the edit dropped while the
// disagreement stays) and kept as a txtar case under testdata/, which a
// normal test replays.
package gatefuzz
