package search

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// TestLongEventLines runs rg on lines whose JSON messages exceed the reader's
// limit (set low here), which must still give line, column and, when it is
// within reach, text.
func TestSearchLongEventLines(t *testing.T) {
	long := strings.Repeat("x", 5000)
	root := newRoot(t, map[string]string{
		"far.txt":  "short\n" + long + "needle" + long + "\n",
		"near.txt": "abc needle " + long + "\n",
		"many.txt": strings.Repeat("a", 2000) + "\n",
	})
	tests := []struct {
		file, pattern string
		want          Match
	}{
		{"far.txt", "needle", Match{Path: "far.txt", Line: 2, Column: 5001, Text: "[line too long to show; the match is at byte 5001]"}},
		{"near.txt", "needle", Match{Path: "near.txt", Line: 1, Column: 5, Text: "abc needle " + long[:289] + "…"}},
		{"many.txt", "a", Match{Path: "many.txt", Line: 1, Column: 1, Text: strings.Repeat("a", 300) + "…"}},
	}
	s := New(root, Options{})
	if s.Engine() != Ripgrep {
		t.Fatal("rg is required")
	}
	for _, tt := range tests {
		p, err := s.plan(Query{Pattern: tt.pattern, Path: tt.file})
		if err != nil {
			t.Fatal(err)
		}
		args := append(append([]string{"--json"}, ripgrepFlags()...), ripgrepArgs(p, "")...)
		cmd := exec.Command(s.rg, args...)
		cmd.Dir = root.Dir()
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		col := newCollector(10)
		r := newEventReader(strings.NewReader(string(out)), p, col, 100)
		r.maxLine = 1000
		if err := r.run(); err != nil {
			t.Fatal(err)
		}
		var res Result
		col.finish(&res)
		if len(res.Matches) != 1 || !reflect.DeepEqual(res.Matches[0], tt.want) {
			t.Errorf("%s: got %s\nwant %s", tt.file, jsonOf(res.Matches), jsonOf(tt.want))
		}
	}
	// The Go engine holds such lines whole and shows the match.
	res, err := goOnly(root).Search(context.Background(), Query{Pattern: "needle", Path: "far.txt"})
	if err != nil || len(res.Matches) != 1 || !strings.HasPrefix(res.Matches[0].Text, "…"+strings.Repeat("x", 100)+"needle") {
		t.Errorf("go engine: %v %s", err, jsonOf(res))
	}
}

func TestSearchUnescapeJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "\"", "\\", "/", "\t", "\n", "\x01", "<&>", "é", "😀", "\u2028", "\xff"}
	for range 1000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		quoted, _ := json.Marshal(b.String())
		var want string
		json.Unmarshal(quoted, &want)
		got, ok := unescapeJSON(quoted[1 : len(quoted)-1])
		if !ok || string(got) != want {
			t.Fatalf("unescapeJSON(%s) = %q, %v; want %q", quoted, got, ok, want)
		}
	}
	// Surrogate pairs, which encoding/json never writes but JSON allows.
	if got, ok := unescapeJSON([]byte(`x\ud83d\ude00y`)); !ok || string(got) != "x😀y" {
		t.Errorf("surrogate pair: %q, %v", got, ok)
	}
}
