package shadow

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/testfs"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// After the first scan, a scan looks only at what the kernel says changed,
// and sees every change made before it was called: edits, creations,
// removals, a new directory's files, what the ignore rules let through.
func TestIncrementalScan(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{
		".gitignore": "build/\n", "src/a.ts": "a\n", "src/b.ts": "b\n", "lib/c.py": "c\n",
		"node_modules/x/index.js": "x\n", "build/out.js": "o\n",
	})
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	w := &diskWatcher{root: root, notify: true}
	defer w.close()
	ctx := context.Background()
	first, _, err := w.scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if w.watcher == nil {
		t.Fatal("no notifications on Linux")
	}
	if _, ok := first.Files["node_modules/x/index.js"]; ok {
		t.Fatal("a dependency is in the snapshot")
	}
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name  string
		do    func()
		want  map[string]int
		fulls int // full scans by then
	}{
		{"an edit", func() { write("src/a.ts", "a changed\n") }, map[string]int{"src/a.ts": servers.FileChanged}, 1},
		{"a new file, a removed one", func() {
			write("src/d.ts", "d\n")
			os.Remove(filepath.Join(dir, "lib", "c.py"))
		}, map[string]int{"src/d.ts": servers.FileCreated, "lib/c.py": servers.FileDeleted}, 1},
		{"an ignored file and a dependency", func() {
			write("build/more.js", "m\n")
			write("node_modules/x/index.js", "x2\n")
		}, map[string]int{}, 1},
		{"a new directory: scanned in full", func() { write("pkg/sub/e.ts", "e\n") }, map[string]int{"pkg/sub/e.ts": servers.FileCreated}, 2},
		{"then notified inside it", func() { write("pkg/sub/e.ts", "e changed\n") }, map[string]int{"pkg/sub/e.ts": servers.FileChanged}, 2},
		{"an ignore file: scanned in full", func() { write(".gitignore", "build/\nsrc/b.ts\n") }, map[string]int{".gitignore": servers.FileChanged, "src/b.ts": servers.FileDeleted}, 3},
	}
	for _, s := range steps {
		time.Sleep(10 * time.Millisecond) // distinct modification times
		s.do()
		snap, changes, err := w.scan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(changes) != len(s.want) {
			t.Errorf("%s: changes %v, want %v", s.name, changes, s.want)
		}
		for p, kind := range s.want {
			if changes[p] != kind {
				t.Errorf("%s: %s = %d, want %d (all: %v)", s.name, p, changes[p], kind, changes)
			}
		}
		if w.fulls != s.fulls {
			t.Errorf("%s: %d full scans, want %d", s.name, w.fulls, s.fulls)
		}
		// The snapshot equals what a full scan sees.
		full, err := Scan(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		if full.Fingerprint != snap.Fingerprint {
			t.Errorf("%s: the incremental snapshot differs from a full scan:\n%v\n%v", s.name, snap.Sorted(), full.Sorted())
		}
	}
}

// BenchmarkScan compares a full scan of the workspace with a scan that
// follows notifications after one edited file, on trees of 1,000 to
// 50,000 files.
func BenchmarkScan(b *testing.B) {
	for _, n := range []int{1000, 10_000, 50_000} {
		dir := b.TempDir()
		for i := range n {
			p := filepath.Join(dir, "src", fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d.ts", i))
			if i%100 == 0 {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					b.Fatal(err)
				}
			}
			if err := os.WriteFile(p, []byte("export const x = 1;\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		root, err := workspace.New(dir)
		if err != nil {
			b.Fatal(err)
		}
		edited := filepath.Join(dir, "src", "d000", "f00000.ts")
		for _, notify := range []bool{false, true} {
			name := fmt.Sprintf("files=%d/full", n)
			if notify {
				name = fmt.Sprintf("files=%d/notified", n)
			}
			b.Run(name, func(b *testing.B) {
				w := &diskWatcher{root: root, notify: notify}
				defer w.close()
				if _, _, err := w.scan(context.Background()); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := range b.N {
					if err := os.WriteFile(edited, []byte(fmt.Sprintf("export const x = %d;\n", i)), 0o644); err != nil {
						b.Fatal(err)
					}
					if _, _, err := w.scan(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// A write that keeps a file's size and modification time (two edits in
// one tick of the file system's clock, a tool that sets the old time
// back) is a new disk state: the servers are told, and the fingerprint,
// under which baselines and answers are kept, changes. Writing the same
// content again is no change once the content is known.
func TestScanSeesWriteWithSameSizeAndTime(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"src/constants.ts": "export const a = 1;\n", "src/types.ts": "t\n"})
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	w := &diskWatcher{root: root, notify: true}
	defer w.close()
	ctx := context.Background()
	p := filepath.Join(dir, "src", "constants.ts")
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	prev, _, err := w.scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		content string
		changed bool
	}{
		{"export const b = 1;\n", true},
		{"export const b = 1;\n", false},
		{"export const c = 2;\n", true},
		{"export const a = 1;\n", true},
	} {
		if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, info.ModTime(), info.ModTime()); err != nil {
			t.Fatal(err)
		}
		snap, changes, err := w.scan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := changes["src/constants.ts"] == servers.FileChanged; got != tc.changed {
			t.Errorf("write %d (%q): reported changed %v, want %v (changes %v)", i, tc.content, got, tc.changed, changes)
		}
		if got := snap.Fingerprint != prev.Fingerprint; got != tc.changed {
			t.Errorf("write %d (%q): fingerprint changed %v, want %v", i, tc.content, got, tc.changed)
		}
		prev = snap
	}
}
