package lsp

import (
	"testing"
)

func TestPositions(t *testing.T) {
	// "é" is 2 bytes / 1 UTF-16 unit; "𝄞" is 4 bytes / 2 units.
	text := []byte("héllo 𝄞 x\r\nline2\nlast")
	tests := []struct {
		pos    Position
		offset int
		col    int
	}{
		{Position{0, 0}, 0, 1},
		{Position{0, 2}, 3, 4},    // after "hé"
		{Position{0, 6}, 7, 8},    // the clef
		{Position{0, 8}, 11, 12},  // after the clef (2 units)
		{Position{0, 7}, 7, 8},    // inside the surrogate pair: before it
		{Position{0, 99}, 13, 14}, // past the end of the line: before \r\n
		{Position{1, 3}, 18, 4},   // "lin|e2"
		{Position{2, 4}, 25, 5},   // end of text
		{Position{9, 0}, 25, 1},   // past the last line
	}
	for _, tt := range tests {
		if got := Offset(text, tt.pos); got != tt.offset {
			t.Errorf("Offset(%v) = %d, want %d", tt.pos, got, tt.offset)
		}
		if got := ByteColumn(text, tt.pos); got != tt.col {
			t.Errorf("ByteColumn(%v) = %d, want %d", tt.pos, got, tt.col)
		}
	}
	for _, off := range []int{0, 3, 7, 11, 18, 25} {
		if back := Offset(text, PositionAt(text, off)); back != off {
			t.Errorf("Offset(PositionAt(%d)) = %d", off, back)
		}
	}
}

func TestApplyEdits(t *testing.T) {
	text := []byte("type User = {}\nlet u: User\n")
	got := ApplyEdits(text, []TextEdit{
		{Range: Range{Start: Position{1, 7}, End: Position{1, 11}}, NewText: "Account"},
		{Range: Range{Start: Position{0, 5}, End: Position{0, 9}}, NewText: "Account"},
		{Range: Range{Start: Position{0, 0}, End: Position{0, 0}}, NewText: "export "},
	})
	if want := "export type Account = {}\nlet u: Account\n"; string(got) != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestURI(t *testing.T) {
	u := URIFromPath("/tmp/a dir/x@1.ts")
	if u.Path() != "/tmp/a dir/x@1.ts" {
		t.Fatalf("round trip: %s -> %s", u, u.Path())
	}
	if DocumentURI("file:///tmp/a%20dir/x%401.ts").Path() != u.Path() {
		t.Fatal("differently encoded URIs of one file have different paths")
	}
	if DocumentURI("untitled:1").Path() != "" {
		t.Fatal("non-file URI has a path")
	}
}

func TestDecodeLocations(t *testing.T) {
	tests := map[string]int{
		`null`: 0,
		`{"uri":"file:///a.ts","range":{"start":{"line":1,"character":2},"end":{"line":1,"character":3}}}`:                                                                                                        1,
		`[{"uri":"file:///a.ts","range":{"start":{"line":1,"character":2},"end":{"line":1,"character":3}}}]`:                                                                                                      1,
		`[{"targetUri":"file:///b.ts","targetRange":{"start":{"line":0,"character":0},"end":{"line":3,"character":0}},"targetSelectionRange":{"start":{"line":0,"character":5},"end":{"line":0,"character":9}}}]`: 1,
	}
	for raw, n := range tests {
		locs := decodeLocations([]byte(raw))
		if len(locs) != n {
			t.Errorf("%s: %d locations, want %d", raw, len(locs), n)
		}
	}
	link := decodeLocations([]byte(`[{"targetUri":"file:///b.ts","targetRange":{"start":{"line":0,"character":0},"end":{"line":3,"character":0}},"targetSelectionRange":{"start":{"line":0,"character":5},"end":{"line":0,"character":9}}}]`))
	if link[0].Range.Start.Character != 5 {
		t.Errorf("a LocationLink should point at its selection range: %+v", link[0])
	}
}

func TestLookupSection(t *testing.T) {
	settings := map[string]any{"python": map[string]any{"analysis": map[string]any{"diagnosticMode": "workspace"}}, "flat.key": 1}
	if got := lookupSection(settings, "python.analysis").(map[string]any)["diagnosticMode"]; got != "workspace" {
		t.Errorf("python.analysis → %v", got)
	}
	if lookupSection(settings, "flat.key") != 1 || lookupSection(settings, "missing.x") != nil {
		t.Error("flat or missing sections")
	}
}

func TestLineAndByteOffset(t *testing.T) {
	text := []byte("ab\r\ncd\n\nlast")
	for n, want := range []string{"ab", "cd", "", "last"} {
		if got, ok := Line(text, n); !ok || got != want {
			t.Errorf("Line(%d) = %q, %v; want %q", n, got, ok, want)
		}
	}
	if _, ok := Line(text, 4); ok {
		t.Error("Line past the end reported a line")
	}
	for _, tt := range []struct{ line, col, want int }{{0, 1, 0}, {1, 2, 5}, {3, 4, 11}, {3, 99, 12}, {9, 1, 12}} {
		if got := ByteOffset(text, tt.line, tt.col); got != tt.want {
			t.Errorf("ByteOffset(%d, %d) = %d, want %d", tt.line, tt.col, got, tt.want)
		}
	}
}
