package gatefuzz

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A language may have a second compiler beside its checker: TypeScript 6's
// tsc beside 7's, because Anvil checks a project pinned to TypeScript 6 or
// older with 7 on the claim that 7's answer is the project's own. The
// second compiler runs over the same workspaces before and after the edits,
// and a trial where its truth differs from the checker's is a compiler
// disagreement. The checker stays the truth the gate is judged against.

// Second is a second compiler run beside a language's checker.
type Second struct {
	Checker Checker
	// Name and Truth name the second compiler and the checker in causes
	// ("TypeScript 6", "TypeScript 7"); Versus names the pair in the
	// summary line ("TypeScript 6 vs 7").
	Name, Truth, Versus string
	// Kinds are codes whose difference is of a kind known and expected,
	// each with that kind (an option 6 deprecates and 7 removes): such a
	// disagreement is still counted, under its kind.
	Kinds map[string]string
}

// Compared is a language whose checker has a second compiler beside it.
type Compared interface {
	// Second returns the second compiler, nil when there is none.
	Second() *Second
}

// secondOf returns l's second compiler, nil when it has none.
func secondOf(l Language) *Second {
	if c, ok := l.(Compared); ok {
		return c.Second()
	}
	return nil
}

// truthOnly is a language without its second compiler: minimising keeps a
// trial's class, which the checker alone decides, so a second compiler's
// runs there would be paid for and dropped.
type truthOnly struct{ Language }

// Disagreement is a trial where the second compiler's truth differs from
// the checker's.
type Disagreement struct {
	// Cause is its kind, which a campaign counts by: when, which code,
	// which compiler ("after the edit, error 2769 only from TypeScript 6"),
	// behind a known kind when the code has one.
	Cause string
	// Error is the first differing error in full ("file: code: message").
	Error string
}

// compareCompilers runs the second compiler, when l has one, over the
// workspaces before and after the edits and records on each outcome where
// its truth differs from the checker's (before and after, each by
// project). A second compiler that cannot check leaves every trial of the
// workspace without an agreement to show: each is counted, with that
// cause. Only the context's end is returned as an error.
func compareCompilers(ctx context.Context, l Language, dirs [2]string, names []string, truth [2]map[string][]string, outs []*Outcome) error {
	s := secondOf(l)
	if s == nil {
		return nil
	}
	var second [2]map[string][]string
	for i, dir := range dirs {
		errs, err := s.Checker.Errors(ctx, dir, names)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			for _, o := range outs {
				o.Compiler = &Disagreement{Cause: s.Name + " could not check: " + cause(err.Error()), Error: err.Error()}
			}
			return nil
		}
		second[i] = errs
	}
	for _, o := range outs {
		n := o.Trial.Name
		o.Compiler = s.compare([2][]string{truth[0][n], truth[1][n]}, [2][]string{second[0][n], second[1][n]})
	}
	return nil
}

// compare compares the checker's errors of one project with the second
// compiler's, before the edit and after, and returns the first
// difference, nil when they agree.
func (s *Second) compare(truth, second [2][]string) *Disagreement {
	for i, when := range []string{"before the edit", "after the edit"} {
		d, ok := firstDifference(truth[i], second[i])
		if !ok {
			continue
		}
		by := s.Name
		if d.inA {
			by = s.Truth
		}
		how := "only"
		if d.fewer > 0 {
			how = "more often"
		}
		code := errorCode(d.err)
		c := fmt.Sprintf("%s, error %s %s from %s", when, code, how, by)
		if kind := s.Kinds[code]; kind != "" {
			c = kind + ": " + c
		}
		return &Disagreement{Cause: c, Error: d.err}
	}
	return nil
}

// errorKey is what two compilers' errors are compared by: the file and the
// code, each error counted. Not the message: TypeScript 6 and 7 word some
// messages differently and mean the same error. On 600 generated trials
// the one difference in full text was TS2769 ("No overload matches this
// call"), whose elaboration 7 gives for the last overload only and 6 for
// every overload. Which file holds how many errors of which code is what
// a verdict rests on.
func errorKey(e string) string {
	file, rest, _ := strings.Cut(e, ": ")
	code, _, _ := strings.Cut(rest, ": ")
	return file + ": " + code
}

// errorCode is an error's code ("file: code: message").
func errorCode(e string) string {
	_, rest, _ := strings.Cut(e, ": ")
	code, _, _ := strings.Cut(rest, ": ")
	return code
}

// difference is where two lists of errors differ: an error of the first
// key (file and code) the lists hold a different number of.
type difference struct {
	// err is the key's first error in the list holding more of it.
	err string
	// inA says that list is a; fewer is how many the other holds.
	inA   bool
	fewer int
}

// firstDifference compares two lists of errors by errorKey, counted, and
// returns the first key (in sorted order) whose counts differ; ok is false
// when none does.
func firstDifference(a, b []string) (d difference, ok bool) {
	ka, kb := byKey(a), byKey(b)
	keys := slices.AppendSeq(slices.Collect(maps.Keys(ka)), maps.Keys(kb))
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		switch ea, eb := ka[k], kb[k]; {
		case len(ea) > len(eb):
			return difference{err: ea[0], inA: true, fewer: len(eb)}, true
		case len(eb) > len(ea):
			return difference{err: eb[0], fewer: len(ea)}, true
		}
	}
	return difference{}, false
}

// byKey groups errors by errorKey, each group sorted.
func byKey(errs []string) map[string][]string {
	out := map[string][]string{}
	for _, e := range errs {
		out[errorKey(e)] = append(out[errorKey(e)], e)
	}
	for _, g := range out {
		slices.Sort(g)
	}
	return out
}
