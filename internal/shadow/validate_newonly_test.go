package shadow

import (
	"slices"
	"strings"
	"testing"

	"github.com/anvil-dev/anvil/internal/testfs"
)

// A check for the new errors alone (the pre-edit hook's) asks tsserver
// for a file's state before the change only where the file has an error
// after it, and a pull server (TypeScript 7's) likewise for a change
// that only edits files and has no dependants. Its verdict and new
// errors must be the full check's on every row; only the errors the
// change resolves may be missing.
func TestNewOnlyFindsWhatTheFullCheckFinds(t *testing.T) {
	for _, server := range []struct {
		name  string
		files map[string]string
	}{
		{"tsserver", nil},
		// No TypeScript pinned: TypeScript 7's server.
		{"tsgo", map[string]string{"package.json": `{"name": "shapes", "private": true, "type": "module"}`}},
	} {
		t.Run(server.name, func(t *testing.T) {
			h := newHarness(t, "ts-esm", harnessOptions{files: server.files})
			if srv := h.requireServer("typescript"); srv.Spec().Name != server.name {
				t.Fatalf("the project got %s, want %s", srv.Spec().Name, server.name)
			}
			newOnlyAgainstFull(t, h, server.name)
		})
	}
}

func newOnlyAgainstFull(t *testing.T, h *harness, server string) {
	const preexisting = "\nexport const wrong: number = \"one\";\n"
	const local = "\nconst wrongHere: number = \"one\";\n"
	render, shapes, main := h.read("src/render.ts"), h.read("src/shapes.ts"), h.read("src/main.ts")
	withError := render + preexisting
	for _, tc := range []struct {
		name string
		// disk is written before the row and put back after it.
		disk    map[string]string
		changes map[string]string
		want    Verdict
		// resolvedDropped: the full check reports a resolved error that
		// the check for new errors need not look for (tsserver's; a pull
		// server's may be known from an earlier check's "before").
		resolvedDropped bool
	}{
		{name: "a body edit of a clean file", changes: map[string]string{"src/shapes.ts": strings.Replace(shapes, "this.side * this.side", "this.side ** 2", 1)}, want: Clean},
		{name: "a new error beside one the file had", disk: map[string]string{"src/render.ts": withError},
			changes: map[string]string{"src/render.ts": withError + "export const worse: string = 2;\n"}, want: Rejected},
		{name: "the same error twice", disk: map[string]string{"src/render.ts": withError},
			changes: map[string]string{"src/render.ts": withError + strings.Replace(preexisting, "wrong", "wrong2", 1)}, want: Rejected},
		{name: "an edit that fixes the file's error", disk: map[string]string{"src/render.ts": withError},
			changes: map[string]string{"src/render.ts": render}, want: Clean, resolvedDropped: true},
		// Edits that keep main.ts's exports (nothing imports it): no
		// dependant is asked about, so a pull server asks the "before"
		// only where the change leaves an error (servers.defersBefores).
		{name: "an edit that fixes the error of a file nothing imports", disk: map[string]string{"src/main.ts": main + local},
			changes: map[string]string{"src/main.ts": main}, want: Clean, resolvedDropped: true},
		{name: "an edit of a file nothing imports that keeps its error", disk: map[string]string{"src/main.ts": main + local},
			changes: map[string]string{"src/main.ts": main + local + "// edited\n"}, want: Clean},
		{name: "a new error in a file nothing imports, beside one it had", disk: map[string]string{"src/main.ts": main + local},
			changes: map[string]string{"src/main.ts": main + local + "const worse: string = 2;\n"}, want: Rejected},
		{name: "an importer broken by a rename", changes: map[string]string{"src/shapes.ts": strings.Replace(shapes, "class Circle", "class Round", 1)}, want: Rejected},
		{name: "an importer that had an error, broken by a rename", disk: map[string]string{"src/render.ts": withError},
			changes: map[string]string{"src/shapes.ts": strings.Replace(shapes, "class Circle", "class Round", 1)}, want: Rejected},
		// A created file beside an edit goes to the batch checker, which
		// this harness has not: both servers resolve imports from disk
		// (servers.Spec.ResolvesFromDisk).
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.write(tc.disk)
			defer h.write(map[string]string{"src/render.ts": render, "src/shapes.ts": shapes, "src/main.ts": main})
			// The check for new errors first: the full check's "before"
			// answers would be in the server's baseline cache for it.
			newOnly := h.validateScope(tc.changes, Scope{Staging: true, NewOnly: true})
			full := h.validateScope(tc.changes, Scope{Staging: true})
			if full.Verdict != tc.want || newOnly.Verdict != tc.want {
				t.Fatalf("verdicts: full %s, new errors only %s; want %s\nfull: %s\nnew only: %s", full.Verdict, newOnly.Verdict, tc.want, describe(full), describe(newOnly))
			}
			if got, want := messages(newOnly.New), messages(full.New); !slices.Equal(got, want) {
				t.Errorf("new errors %q, the full check's %q", got, want)
			}
			switch dropped := len(newOnly.Resolved) < len(full.Resolved); {
			case len(newOnly.Resolved) > len(full.Resolved):
				t.Errorf("resolved: %d, more than the full check's %d", len(newOnly.Resolved), len(full.Resolved))
			case server == "tsserver" && dropped != tc.resolvedDropped:
				t.Errorf("resolved: %d of the full check's %d; want them dropped: %t", len(newOnly.Resolved), len(full.Resolved), tc.resolvedDropped)
			}
		})
	}
}

func messages(ds []Diag) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Path+": "+d.Message)
	}
	slices.Sort(out)
	return out
}

// write puts files on the harness's disk (nothing for nil).
func (h *harness) write(files map[string]string) {
	h.t.Helper()
	if len(files) > 0 {
		testfs.Write(h.t, h.dir, files)
	}
}
