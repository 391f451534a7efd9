package servers

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The pin kept must never outlive the file it was read from: each row
// rewrites package.json to the same size, which a stat of size and
// modification time alone could not tell apart.
func TestTypeScriptPinsSeeEveryRewrite(t *testing.T) {
	pinning := func(v string) string { return `{"devDependencies": {"typescript": "` + v + `"}}` }
	for _, tc := range []struct {
		name string
		// later is the clock the pins judge by: long after the writes,
		// so that a stat is trusted, or now, while they are recent.
		later bool
		// keepTime sets the rewritten file's modification time back to
		// the first one's, as a tool that restores times does.
		keepTime bool
	}{
		{name: "old stat, rewritten", later: true},
		{name: "old stat, rewritten, time set back", later: true, keepTime: true},
		{name: "recent stat, rewritten in the same moment", keepTime: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			manifest := filepath.Join(root, "package.json")
			writeFile(t, manifest, pinning("5.9.2"))
			first, err := os.Stat(manifest)
			if err != nil {
				t.Fatal(err)
			}
			pins := &typeScriptPins{}
			if tc.later {
				pins.now = func() time.Time { return time.Now().Add(time.Hour) }
			}
			if major, text := pins.of(root); major != 5 || text != "5.9.2" {
				t.Fatalf("first read: %d %q, want 5 \"5.9.2\"", major, text)
			}
			writeFile(t, manifest, pinning("7.0.2"))
			if tc.keepTime {
				if err := os.Chtimes(manifest, first.ModTime(), first.ModTime()); err != nil {
					t.Fatal(err)
				}
			}
			if major, text := pins.of(root); major != 7 || text != "7.0.2" {
				t.Errorf("after the rewrite: %d %q, want 7 \"7.0.2\"", major, text)
			}
		})
	}
}

// An answer whose files did not change is the one kept, not read again:
// the point of the pins is that a check reaching thousands of files reads
// the project's package.json once.
func TestTypeScriptPinsKeepAnUnchangedAnswer(t *testing.T) {
	root := t.TempDir()
	manifest := filepath.Join(root, "package.json")
	writeFile(t, manifest, `{"devDependencies": {"typescript": "5.9.2"}}`)
	pins := &typeScriptPins{now: func() time.Time { return time.Now().Add(time.Hour) }}
	if major, _ := pins.of(root); major != 5 {
		t.Fatalf("first read: %d, want 5", major)
	}
	// The kept answer is marked: an answer read again would not carry
	// the mark.
	pins.mu.Lock()
	p := pins.by[root]
	p.text = "kept"
	pins.by[root] = p
	pins.mu.Unlock()
	if _, text := pins.of(root); text != "kept" {
		t.Errorf("an unchanged package.json was read again (%q)", text)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
