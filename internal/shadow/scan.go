package shadow

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"sync"

	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Snapshot is the state of the workspace's files at one moment: every file
// the ignore rules let through, with its size and modification time.
type Snapshot struct {
	Files map[string]FileStat // by workspace-relative path
	// Fingerprint names this state; it differs as soon as any file is added,
	// removed, resized or modified.
	Fingerprint string
	// DependencyDirs are the directories of installed packages the scan
	// left out (node_modules, virtual environments, vendor).
	DependencyDirs []string
}

// FileStat is what a snapshot records of a file.
type FileStat struct {
	Size    int64
	ModTime int64 // UnixNano
	Abs     string
}

// Sorted returns the snapshot's paths in order.
func (s *Snapshot) Sorted() []string {
	out := make([]string, 0, len(s.Files))
	for p := range s.Files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Scan returns a snapshot of the workspace's files (those the ignore
// rules keep), for finding dependants outside a validation.
func Scan(ctx context.Context, root *workspace.Root) (*Snapshot, error) {
	snap, _, err := (&diskWatcher{root: root}).scan(ctx)
	return snap, err
}

// diskWatcher notices what changed on disk between validations (the user
// editing while Anvil runs, or Anvil's own commits), so the language
// servers can be told: they cache closed files and would otherwise check
// a change against contents that are gone.
type diskWatcher struct {
	root *workspace.Root
	mu   sync.Mutex
	prev *Snapshot
}

// scan walks the workspace and returns its snapshot and the changes since
// the previous scan (none on the first).
func (w *diskWatcher) scan(ctx context.Context) (*Snapshot, map[string]int, error) {
	start, err := w.root.Resolve(".")
	if err != nil {
		return nil, nil, err
	}
	var entries []workspace.Entry
	var deps []string
	err = w.root.Walk(ctx, start, workspace.WalkOptions{}, func(e workspace.Entry) error {
		switch {
		case e.IsDir() && workspace.IsDependencyDir(e.Abs):
			// Installed packages are inputs, never the project's files.
			deps = append(deps, e.Rel)
			return fs.SkipDir
		case !e.IsDir() && e.Mode.IsRegular():
			entries = append(entries, e)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	snap := &Snapshot{Files: statAll(entries), DependencyDirs: deps}
	h := sha256.New()
	for _, p := range snap.Sorted() {
		f := snap.Files[p]
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", p, f.Size, f.ModTime)
	}
	snap.Fingerprint = hex.EncodeToString(h.Sum(nil))

	w.mu.Lock()
	defer w.mu.Unlock()
	changes := map[string]int{}
	if w.prev != nil && w.prev.Fingerprint != snap.Fingerprint {
		for p, f := range snap.Files {
			old, ok := w.prev.Files[p]
			switch {
			case !ok:
				changes[p] = servers.FileCreated
			case old.Size != f.Size || old.ModTime != f.ModTime:
				changes[p] = servers.FileChanged
			}
		}
		for p := range w.prev.Files {
			if _, ok := snap.Files[p]; !ok {
				changes[p] = servers.FileDeleted
			}
		}
	}
	w.prev = snap
	return snap, changes, nil
}

// statAll stats entries with a few goroutines: on a large tree the stats
// are most of a scan, and they spread over cores.
func statAll(entries []workspace.Entry) map[string]FileStat {
	stats := make([]FileStat, len(entries))
	ok := make([]bool, len(entries))
	workers := min(4, len(entries))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(entries); i += workers {
				if info, err := os.Stat(entries[i].Abs); err == nil {
					stats[i] = FileStat{Size: info.Size(), ModTime: info.ModTime().UnixNano(), Abs: entries[i].Abs}
					ok[i] = true
				}
			}
		})
	}
	wg.Wait()
	files := make(map[string]FileStat, len(entries))
	for i, e := range entries {
		if ok[i] {
			files[e.Rel] = stats[i]
		}
	}
	return files
}
