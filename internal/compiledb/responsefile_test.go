package compiledb

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestResponseFileWordsAreGCCs: for generated response files whose words
// are spelled every way gcc takes them apart (backslashes before spaces,
// newlines, quotes and themselves; single and double quotes, inside and
// across words; carriage returns, form feeds and vertical tabs between
// them; a quote or a backslash left open at the end), the words Anvil
// reads are the ones gcc reads. Each word is an -I option naming a
// directory that does not exist, which gcc -v prints as it read it.
func TestResponseFileWordsAreGCCs(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 3))
	dir := t.TempDir()
	rsp := filepath.Join(dir, "flags.rsp")
	for range 200 {
		data := generatedResponseFile(r)
		if err := os.WriteFile(rsp, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		want := gccIncludeDirs(t, dir, data)
		var got []string
		for _, w := range responseFileWords(data) {
			got = append(got, strings.TrimPrefix(w, "-I"))
		}
		if !slices.Equal(got, want) {
			t.Errorf("in %q Anvil reads the directories %q; gcc reads %q", data, got, want)
		}
	}
}

// TestResponseFileWords: the spellings one by one, and a file of
// whitespace, which holds no words.
func TestResponseFileWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" \n\t\r\f\v", nil},
		{"-Ia -Ib", []string{"-Ia", "-Ib"}},
		{"-Ia\\\nb", []string{"-Ia\nb"}},
		{"-I'a\\b'", []string{"-Iab"}},
		{"-I\"a b\"c", []string{"-Ia bc"}},
		{"-Ia\r\n-Ib\r\n", []string{"-Ia", "-Ib"}},
		{"''", []string{""}},
		{"-I'open", []string{"-Iopen"}},
		{"-Ia\\", []string{"-Ia"}},
	} {
		if got := responseFileWords(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("responseFileWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// generatedResponseFile returns one to four -I options, each spelled of
// pieces gcc reads as part of the word, between random whitespace.
func generatedResponseFile(r *rand.Rand) string {
	spaces := []string{" ", "\n", "\r\n", "\t", " \f", "\v", "  \n  "}
	anyChar := []string{"a", "b", " ", "\n", "\r", "\t", "'", "\"", "\\", "@"}
	var b strings.Builder
	n := 1 + r.IntN(4)
	for i := range n {
		b.WriteString(spaces[r.IntN(len(spaces))])
		b.WriteString("-Ix")
		for range r.IntN(5) {
			switch r.IntN(4) {
			case 0:
				b.WriteString([]string{"a", "b", "-", "_", "."}[r.IntN(5)])
			case 1:
				b.WriteString("\\" + anyChar[r.IntN(len(anyChar))])
			case 2, 3:
				q := []string{"'", "\""}[r.IntN(2)]
				b.WriteString(q)
				for range r.IntN(4) {
					c := anyChar[r.IntN(len(anyChar))]
					if c == q || c == "\\" {
						c = "\\" + c
					}
					b.WriteString(c)
				}
				b.WriteString(q)
			}
		}
		if i == n-1 && r.IntN(8) == 0 {
			b.WriteString([]string{"'open", "\"open", "\\"}[r.IntN(3)])
		}
	}
	if r.IntN(2) == 0 {
		b.WriteString(spaces[r.IntN(len(spaces))])
	}
	return b.String()
}

// gccIncludeDirs returns the -I directories gcc reads from flags.rsp in
// dir, as its -v output names them (none exists, so each is named once
// per option, in order).
func gccIncludeDirs(t *testing.T, dir, data string) []string {
	t.Helper()
	cmd := exec.Command("gcc", "-E", "-v", "-x", "c", "/dev/null", "-o", "/dev/null", "@flags.rsp")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gcc on the response file %q: %v: %s", data, err, out)
	}
	const named = "ignoring nonexistent directory \""
	text := string(out)
	end := strings.Index(text, "#include \"...\" search starts here:")
	if end < 0 {
		t.Fatalf("gcc -v printed no search list:\n%s", out)
	}
	text = text[:end]
	var dirs []string
	for _, chunk := range strings.Split(text, named)[1:] {
		d := strings.TrimSuffix(chunk, "\"\n")
		if !filepath.IsAbs(d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}
