package shadow

import (
	"cmp"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// A check bounded in what it may expect to spend on the dependants (the
// pre-edit hook's) asks about them only when the server's cost per
// question says they fit; past it they are left out and the verdict says
// so, while the changed files are still judged. Unbounded, or with room,
// the importers an interface change breaks are found.
func TestDependantsWithinLeavesCostlyImporters(t *testing.T) {
	h := sixImporters(t, Options{Strategy: StrategyPerFile})
	renamed := "export interface Account { name: string }\n"
	broken := "export interface Account { name: string }\nexport const bad: number = \"no\";\n"
	for _, tc := range []struct {
		name        string
		path        string // "" for src/types.ts
		change      string
		within      time.Duration
		changedOnly bool
		verdict     Verdict
		left        bool
		inUsers     bool // the importers' errors are found
	}{
		{"no bound", "", renamed, 0, false, Rejected, false, true},
		{"room for them", "", renamed, time.Hour, false, Rejected, false, true},
		{"too costly", "", renamed, time.Nanosecond, false, Clean, true, false},
		{"too costly, the changed file broken", "", broken, time.Nanosecond, false, Rejected, true, false},
		// ChangedOnly leaves them whatever they cost, and says so only
		// when there are any: a body edit leaves none; a created file,
		// which may take over a name others import, may have some.
		{"changed files only", "", renamed, 0, true, Clean, true, false},
		{"changed files only, a body edit", "", "export interface User { name: string }\nfunction f() { return 1; }\n", 0, true, Clean, false, false},
		{"changed files only, a created file", "src/index.ts", "export const x = 1;\n", 0, true, Clean, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scope := Scope{Staging: true, NewOnly: true, DependantsWithin: tc.within, ChangedOnly: tc.changedOnly}
			path := cmp.Or(tc.path, "src/types.ts")
			res := h.validateScope(map[string]string{path: tc.change}, scope)
			if res.Verdict != tc.verdict || res.DependantsLeft != tc.left {
				t.Fatalf("verdict %s, dependants left %v; want %s, %v\n%s", res.Verdict, res.DependantsLeft, tc.verdict, tc.left, describe(res))
			}
			inUsers := false
			for _, d := range res.New {
				inUsers = inUsers || strings.HasPrefix(d.Path, "src/use")
			}
			if inUsers != tc.inUsers {
				t.Errorf("errors in the importers: %v, want %v\n%s", inUsers, tc.inUsers, describe(res))
			}
			if tc.left && tc.within > 0 && !strings.Contains(strings.Join(res.Notes, "\n"), "6 files that depend on them") {
				t.Errorf("the notes do not say what was left:\n%s", describe(res))
			}
		})
	}
}

// Past max_dependants, a check that may leave its dependants to a later
// one leaves them, and still judges the changed files (a commit's check
// is unverified there instead); a deletion whose importers are left is
// not judged on them, and says why.
func TestDependantsWithinLeavesWhatItCannotCheck(t *testing.T) {
	h := sixImporters(t, Options{Strategy: StrategyPerFile, MaxDependants: 3})
	broken := "export interface Account { name: string }\nexport const bad: number = \"no\";\n"
	res := h.validateScope(map[string]string{"src/types.ts": broken}, Scope{Staging: true, NewOnly: true, DependantsWithin: time.Hour})
	if res.Verdict != Rejected || !res.DependantsLeft {
		t.Errorf("past max_dependants, within a bound: verdict %s, left %v; want the changed file judged, its importers left\n%s", res.Verdict, res.DependantsLeft, describe(res))
	}
	res = h.validateScope(map[string]string{"src/types.ts": broken}, Scope{Staging: true, NewOnly: true})
	if res.Verdict != Unverified || res.DependantsLeft {
		t.Errorf("past max_dependants, no bound: verdict %s, left %v; want unverified\n%s", res.Verdict, res.DependantsLeft, describe(res))
	}
	res = h.validateScope(map[string]string{"-src/types.ts": ""}, Scope{Staging: true, NewOnly: true, DependantsWithin: time.Nanosecond})
	if res.Verdict == Clean || !res.DependantsLeft || len(res.Unverified) == 0 || !strings.Contains(res.Unverified[0].Reason, "left to a complete check") {
		t.Errorf("a deletion whose importers are left: verdict %s, left %v; want unverified, saying why\n%s", res.Verdict, res.DependantsLeft, describe(res))
	}
}

// sixImporters is a TypeScript project whose src/types.ts six files
// import, checked with opts.
func sixImporters(t *testing.T, opts Options) *harness {
	files := map[string]string{
		"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}`,
		"src/types.ts":  "export interface User { name: string }\n",
	}
	for i := range 6 {
		files[fmt.Sprintf("src/use%d.ts", i)] = "import type { User } from \"./types\";\nexport const u: User = { name: \"x\" };\n"
	}
	dir := t.TempDir()
	testfs.Write(t, dir, files)
	h := newHarnessAt(t, dir, harnessOptions{opts: opts})
	h.requireServer("typescript")
	return h
}
