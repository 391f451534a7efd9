package hooks

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// Each patch leaves the files as Codex's apply_patch writes them.
func TestCodexPatch(t *testing.T) {
	const cwd = "/ws"
	disk := map[string]string{
		"/ws/src/a.ts":  "export const a = 1;\nexport const b = 2;\nexport const c = 3;\n",
		"/ws/src/d.ts":  "line1\nline2\n",
		"/ws/src/f.py":  "def f():\n    return 1\n\ndef g():\n    return 1\n",
		"/ws/src/cr.ts": "let x = 1;  \nlet y = 2;\n",
	}
	tests := []struct {
		name  string
		patch string
		want  map[string]string // path -> content; "<deleted>" for a deletion
		pass  string            // a Pass whose reason contains this
	}{
		{
			name:  "update with context",
			patch: "*** Begin Patch\n*** Update File: src/a.ts\n@@\n export const a = 1;\n-export const b = 2;\n+export const b = \"2\";\n export const c = 3;\n*** End Patch",
			want:  map[string]string{"/ws/src/a.ts": "export const a = 1;\nexport const b = \"2\";\nexport const c = 3;\n"},
		},
		{
			name:  "first hunk without its @@ line, in a heredoc",
			patch: "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/d.ts\n-line2\n+line two\n*** End Patch\nEOF\n",
			want:  map[string]string{"/ws/src/d.ts": "line1\nline two\n"},
		},
		{
			name:  "@@ names the line to find first",
			patch: "*** Begin Patch\n*** Update File: src/f.py\n@@ def g():\n-    return 1\n+    return 2\n*** End Patch\n",
			want:  map[string]string{"/ws/src/f.py": "def f():\n    return 1\n\ndef g():\n    return 2\n"},
		},
		{
			name:  "trailing blanks ignored when finding",
			patch: "*** Begin Patch\n*** Update File: src/cr.ts\n-let x = 1;\n+let x = 10;\n*** End Patch\n",
			want:  map[string]string{"/ws/src/cr.ts": "let x = 10;\nlet y = 2;\n"},
		},
		{
			name:  "add, delete and move in one patch",
			patch: "*** Begin Patch\n*** Add File: src/new.ts\n+export const n = 1;\n+\n*** Delete File: src/d.ts\n*** Update File: src/a.ts\n*** Move to: src/moved.ts\n@@\n-export const c = 3;\n+export const c = 4;\n*** End Patch\n",
			want: map[string]string{
				"/ws/src/new.ts":   "export const n = 1;\n\n",
				"/ws/src/d.ts":     "<deleted>",
				"/ws/src/moved.ts": "export const a = 1;\nexport const b = 2;\nexport const c = 4;\n",
				"/ws/src/a.ts":     "<deleted>",
			},
		},
		{
			name:  "a hunk with no old lines appends",
			patch: "*** Begin Patch\n*** Update File: src/d.ts\n@@\n+line3\n*** End Patch\n",
			want:  map[string]string{"/ws/src/d.ts": "line1\nline2\nline3\n"},
		},
		{
			name:  "end of file",
			patch: "*** Begin Patch\n*** Update File: src/f.py\n@@\n-    return 1\n+    return 3\n*** End of File\n*** End Patch\n",
			want:  map[string]string{"/ws/src/f.py": "def f():\n    return 1\n\ndef g():\n    return 3\n"},
		},
		{
			name:  "two hunks in order",
			patch: "*** Begin Patch\n*** Update File: src/f.py\n@@\n-    return 1\n+    return 5\n@@\n-    return 1\n+    return 6\n*** End Patch\n",
			want:  map[string]string{"/ws/src/f.py": "def f():\n    return 5\n\ndef g():\n    return 6\n"},
		},
		{
			name:  "absolute path",
			patch: "*** Begin Patch\n*** Add File: /ws/src/abs.ts\n+x\n*** End Patch\n",
			want:  map[string]string{"/ws/src/abs.ts": "x\n"},
		},
		{name: "lines not in the file", patch: "*** Begin Patch\n*** Update File: src/a.ts\n-nope\n+yes\n*** End Patch\n", pass: "cannot find"},
		{name: "update of a missing file", patch: "*** Begin Patch\n*** Update File: src/missing.ts\n-a\n+b\n*** End Patch\n", pass: "does not exist"},
		{name: "delete of a missing file", patch: "*** Begin Patch\n*** Delete File: src/missing.ts\n*** End Patch\n", pass: "does not exist"},
		{name: "no envelope", patch: "echo hi", pass: "does not parse"},
		{name: "no end", patch: "*** Begin Patch\n*** Add File: x.ts\n+a\n", pass: "does not parse"},
		{name: "a bad hunk line", patch: "*** Begin Patch\n*** Update File: src/a.ts\n@@\n?what\n*** End Patch\n", pass: "does not parse"},
		{name: "an unknown operation", patch: "*** Begin Patch\n*** Rename File: a\n*** End Patch\n", pass: "does not parse"},
		{name: "an update without hunks", patch: "*** Begin Patch\n*** Update File: src/a.ts\n*** End Patch\n", pass: "does not parse"},
	}
	read := func(abs string) ([]byte, bool, error) {
		s, ok := disk[filepath.ToSlash(abs)]
		return []byte(s), ok, nil
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			input, _ := json.Marshal(map[string]string{"command": tc.patch})
			got, err := Edits(Codex, "apply_patch", input, cwd, read)
			var p *Pass
			if tc.pass != "" {
				if !errors.As(err, &p) || !strings.Contains(p.Reason, tc.pass) {
					t.Fatalf("got %v, %v; want a pass saying %q", got, err, tc.pass)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d files, want %d: %+v", len(got), len(tc.want), got)
			}
			for _, f := range got {
				want, ok := tc.want[f.Path]
				switch {
				case !ok:
					t.Errorf("unexpected file %s", f.Path)
				case want == "<deleted>" && !f.Delete:
					t.Errorf("%s not deleted", f.Path)
				case want != "<deleted>" && (f.Delete || string(f.Content) != want):
					t.Errorf("%s:\n%q\nwant\n%q", f.Path, f.Content, want)
				}
			}
		})
	}
}

// A patch replacing a file's lines, made from any two texts, turns the
// first into the second; nothing the parser is given makes it panic.
func FuzzPatch(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("", "x\n")
	f.Add("x\n\n\n", "")
	f.Add("  spaced  \n\ttab\n", "*** End Patch\n@@ x\n")
	f.Fuzz(func(t *testing.T, old, new string) {
		if strings.ContainsRune(old, '\r') || strings.ContainsRune(new, '\r') {
			t.Skip()
		}
		// Arbitrary text as a patch: an error or ops, never a panic.
		if ops, err := ParsePatch("*** Begin Patch\n" + old + "\n*** End Patch"); err == nil {
			for _, op := range ops {
				_, _ = ApplyHunks(new, op.Hunks)
			}
		}
		oldLines := splitLines(old)
		newLines := splitLines(new)
		var b strings.Builder
		b.WriteString("*** Begin Patch\n*** Update File: f.txt\n@@\n")
		for _, l := range oldLines {
			b.WriteString("-" + l + "\n")
		}
		for _, l := range newLines {
			b.WriteString("+" + l + "\n")
		}
		b.WriteString("*** End Patch\n")
		ops, err := ParsePatch(b.String())
		if len(oldLines) == 0 && len(newLines) == 0 {
			if err == nil {
				t.Fatalf("an empty hunk parsed: %+v", ops)
			}
			return
		}
		if err != nil {
			t.Fatalf("parse: %v\n%s", err, b.String())
		}
		if len(ops) != 1 || ops[0].Kind != "update" {
			t.Fatalf("ops %+v", ops)
		}
		got, err := ApplyHunks(old, ops[0].Hunks)
		if err != nil {
			t.Fatalf("apply: %v", err)
		}
		want := strings.Join(newLines, "\n") + "\n"
		if len(oldLines) == 0 {
			want = strings.Join(append(oldLines, newLines...), "\n") + "\n"
		}
		if got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}

// splitLines splits as the applier reads a file: a final newline ends the
// last line rather than starting another.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
