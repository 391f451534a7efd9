package gatefuzz

import (
	"context"
	"errors"
	"testing"
)

// Two compilers' truths of one project are compared by file and code,
// counted: a message worded differently is the same error; an error one
// finds and the other does not, or finds a different number of times, is
// a disagreement, its cause the first such error.
func TestCompareCompilers(t *testing.T) {
	overload7 := "src/m2.ts: 2769: No overload matches this call.\nThe last overload gave the following error.\nArgument of type 'string' is not assignable to parameter of type 'boolean'."
	overload6 := "src/m2.ts: 2769: No overload matches this call.\nOverload 1 of 2, '(x: number): number', gave the following error.\nArgument of type 'string' is not assignable to parameter of type 'number'.\nOverload 2 of 2, '(x: boolean): boolean', gave the following error.\nArgument of type 'string' is not assignable to parameter of type 'boolean'."
	missing := "src/m2.ts: 2307: Cannot find module './m1' or its corresponding type declarations."
	dup := "src/m3.ts: 2300: Duplicate identifier 'f1'."
	assign := "src/m1.ts: 2322: Type 'string' is not assignable to type 'number'."
	for _, c := range []struct {
		name          string
		truth, second [2][]string
		cause, first  string // "" when they agree
	}{
		{name: "no errors"},
		{name: "the same errors in another order",
			truth:  [2][]string{{dup, dup}, {missing, assign}},
			second: [2][]string{{dup, dup}, {assign, missing}}},
		{name: "a message worded differently",
			truth:  [2][]string{nil, {overload7}},
			second: [2][]string{nil, {overload6}}},
		{name: "an error only the second compiler finds",
			truth:  [2][]string{nil, {assign}},
			second: [2][]string{nil, {assign, missing}},
			cause:  "after the edit, error 2307 only from TypeScript 6", first: missing},
		{name: "an error only the truth finds, before the edit",
			truth:  [2][]string{{dup}, {dup, missing}},
			second: [2][]string{nil, {dup}},
			cause:  "before the edit, error 2300 only from TypeScript 7", first: dup},
		{name: "an error found more often",
			truth:  [2][]string{nil, {dup, dup}},
			second: [2][]string{nil, {dup}},
			cause:  "after the edit, error 2300 more often from TypeScript 7", first: dup},
		{name: "the same code in another file",
			truth:  [2][]string{nil, {"src/m1.ts: 2307: Cannot find module './m0'."}},
			second: [2][]string{nil, {missing}},
			cause:  "after the edit, error 2307 only from TypeScript 7", first: "src/m1.ts: 2307: Cannot find module './m0'."},
		{name: "another code for the same line",
			truth:  [2][]string{nil, {"src/m1.ts: 2322: Type 'string' is not assignable to type 'number'."}},
			second: [2][]string{nil, {"src/m1.ts: 2345: Argument of type 'string' is not assignable to parameter of type 'number'."}},
			cause:  "after the edit, error 2322 only from TypeScript 7", first: assign},
		{name: "an option 6 deprecates and 7 removes",
			truth:  [2][]string{{"tsconfig.json: 5102: Option 'baseUrl' has been removed. Please remove it from your configuration."}, nil},
			second: [2][]string{{"tsconfig.json: 5101: Option 'baseUrl' is deprecated and will stop functioning in TypeScript 7.0."}, nil},
			cause:  "an option TypeScript 6 deprecates and 7 removes: before the edit, error 5101 only from TypeScript 6",
			first:  "tsconfig.json: 5101: Option 'baseUrl' is deprecated and will stop functioning in TypeScript 7.0."},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := TS{Legacy: []string{"tsc6"}}.Second().compare(c.truth, c.second)
			switch {
			case c.cause == "" && d != nil:
				t.Fatalf("a disagreement: %s (first: %q); want none", d.Cause, d.Error)
			case c.cause == "" && d == nil:
			case d == nil:
				t.Fatalf("no disagreement; want %q", c.cause)
			case d.Cause != c.cause || d.Error != c.first:
				t.Fatalf("disagreement %q (first %q); want %q (first %q)", d.Cause, d.Error, c.cause, c.first)
			}
		})
	}
}

// Without Legacy, TypeScript has no second compiler: the campaign runs
// as before.
func TestTSWithoutLegacyHasNoSecond(t *testing.T) {
	if s := secondOf(TS{}); s != nil {
		t.Fatalf("a second compiler without Legacy: %+v", s)
	}
	if s := secondOf(truthOnly{TS{Legacy: []string{"tsc6"}}}); s != nil {
		t.Fatalf("a second compiler through truthOnly: %+v", s)
	}
}

// failing is a checker that cannot check.
type failing struct{}

func (failing) Errors(context.Context, string, []string) (map[string][]string, error) {
	return nil, errors.New("node: exec format error")
}

// withSecond is TypeScript with a given second compiler.
type withSecond struct {
	TS
	second *Second
}

func (l withSecond) Second() *Second { return l.second }

// A second compiler that cannot check shows no agreement: every trial of
// its workspace is a disagreement, with that cause.
func TestSecondCompilerThatCannotCheck(t *testing.T) {
	l := withSecond{second: &Second{Checker: failing{}, Name: "TypeScript 6", Truth: "TypeScript 7"}}
	outs := []*Outcome{{Trial: &Trial{Name: "t000"}}, {Trial: &Trial{Name: "t001"}}}
	truth := [2]map[string][]string{{}, {}}
	if err := compareCompilers(context.Background(), l, [2]string{t.TempDir(), t.TempDir()}, []string{"t000", "t001"}, truth, outs); err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		if o.Compiler == nil || o.Compiler.Cause != "TypeScript 6 could not check: node" {
			t.Fatalf("%s: %+v; want a disagreement, TypeScript 6 could not check", o.Trial.Name, o.Compiler)
		}
	}
}
