package gatefuzz

import (
	"context"
	"math/rand/v2"
)

// Language generates projects of one language and runs its batch checker.
type Language interface {
	// Name is the language's name in flags, tags and tables ("ts").
	Name() string
	// Generate writes a random project and a random edit to it, with the
	// tags of the constructs they use; with onDisk, the project may hold
	// an error before the edit (ondisk.go).
	Generate(r *rand.Rand, onDisk bool) (Files, Edit, []string)
	// Shared are the files a workspace holds beside the projects named
	// (a go.mod, a pyrightconfig.json with an execution root per project).
	Shared(names []string) Files
	// Checker is the language's batch checker: the truth.
	Checker
}

// Checker runs a batch checker over a workspace of projects.
type Checker interface {
	// Errors returns each project's errors ("file: code: message", the
	// file relative to the project's folder), by project name.
	Errors(ctx context.Context, dir string, names []string) (map[string][]string, error)
}

// Gate judges an edit of a workspace: the gate's verdict on the change
// set, by whichever front end it is asked through.
type Gate interface {
	Judge(ctx context.Context, edit Edit) (Judgement, error)
	Close()
}

// OpenGate opens a gate on the workspace at dir. The front end (in this
// process, the daemon, the hooks) is the opener's: the fuzzer asks them all
// the same way.
type OpenGate func(ctx context.Context, dir string) (Gate, error)

// trialRand is the random source of one trial: the campaign's seed and
// the trial's number, so that a trial can be generated again alone.
func trialRand(seed uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(i)))
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

func chance(r *rand.Rand, p float64) bool { return r.Float64() < p }

func ptr(s string) *string { return &s }

// declsOf returns every declaration of units (modules, packages,
// headers), in order, and the unit holding each: what an edit picks from.
func declsOf[U, D comparable](units []U, declsIn func(U) []D) (decls []D, owner map[D]U) {
	owner = map[D]U{}
	for _, u := range units {
		for _, d := range declsIn(u) {
			decls = append(decls, d)
			owner[d] = u
		}
	}
	return decls, owner
}
