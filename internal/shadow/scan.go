package shadow

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/anvil-dev/anvil/internal/fswatch"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Snapshot is the state of the workspace's files at one moment: every file
// the ignore rules let through, with its size and modification time.
type Snapshot struct {
	Files reach.Files // by workspace-relative path
	// Fingerprint names this state; it differs as soon as any file is added,
	// removed, resized or modified, or the installed dependencies change.
	Fingerprint string
	// DependencyDirs are the directories of installed packages the scan
	// left out (node_modules, virtual environments, vendor).
	DependencyDirs []string
	// Deps digests, per language family ("ecma", "python", "go"), what
	// the servers resolve imports against beside the project's files: the
	// installed packages (as their installers' records and directories
	// show) and the lock files and manifests.
	Deps map[string]string

	files string // the digest of Files alone, kept up to date change by change
}

// finish sets the snapshot's fingerprint from its files' and its
// dependencies' digests.
func (s *Snapshot) finish() {
	h := sha256.New()
	h.Write([]byte(s.files))
	for _, fam := range []string{"ecma", "go", "python"} {
		fmt.Fprintf(h, "\x00%s=%s", fam, s.Deps[fam])
	}
	s.Fingerprint = hex.EncodeToString(h.Sum(nil))
}

// FileStat is what a snapshot records of a file.
type FileStat = reach.FileStat

// Sorted returns the snapshot's paths in order.
func (s *Snapshot) Sorted() []string {
	return s.Files.Sorted()
}

// Scan returns a snapshot of the workspace's files (those the ignore
// rules keep), for finding dependants outside a validation.
func Scan(ctx context.Context, root *workspace.Root) (*Snapshot, error) {
	snap, _, err := (&diskWatcher{root: root}).scan(ctx)
	return snap, err
}

// fullScanEvery bounds how long the snapshot goes on notifications alone:
// a full scan then confirms it, whatever they said.
const fullScanEvery = 10 * time.Minute

// diskWatcher notices what changed on disk between validations (the user
// editing while Anvil runs, or Anvil's own commits), so the language
// servers can be told: they cache closed files and would otherwise check
// a change against contents that are gone.
//
// The first scan walks the workspace; later ones look only at the paths
// the kernel's notifications name (package fswatch), so a warm scan costs
// what changed, not the size of the tree. Without notifications, after
// the kernel dropped some, when an ignore file changed, and at least every
// fullScanEvery, the scan walks the whole workspace again.
type diskWatcher struct {
	root *workspace.Root
	// notify, if set, is used for incremental scans; the first full scan
	// starts it.
	notify bool

	mu      sync.Mutex
	prev    *Snapshot
	watcher *fswatch.Watcher
	fullAt  time.Time
	exclude int64 // .git/info/exclude's modification time at the last full scan
	fulls   int   // full scans made, for tests
}

// close releases the notifications.
func (w *diskWatcher) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watcher != nil {
		w.watcher.Close()
		w.watcher = nil
	}
}

// scan returns the workspace's snapshot and the changes since the
// previous scan (none on the first).
func (w *diskWatcher) scan(ctx context.Context) (*Snapshot, map[string]int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.prev != nil && w.watcher != nil {
		ch := w.watcher.Changes()
		if reason := w.needFull(ch); reason == "" {
			snap, changes, err := w.apply(ctx, ch.Paths)
			if err != nil {
				return nil, nil, err
			}
			w.prev = snap
			return snap, changes, nil
		}
	}
	snap, err := w.full(ctx)
	if err != nil {
		return nil, nil, err
	}
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

// needFull says why the notifications cannot be trusted for this scan
// ("" if they can).
func (w *diskWatcher) needFull(ch fswatch.Changes) string {
	switch {
	case ch.Lost != "":
		return ch.Lost
	case time.Since(w.fullAt) > fullScanEvery:
		return "the last full scan is old"
	case w.excludeStamp() != w.exclude:
		return ".git/info/exclude changed"
	}
	for _, p := range ch.Paths {
		base := filepath.Base(p)
		if base == ".gitignore" || (base == "ignore" && filepath.Base(filepath.Dir(p)) == ".anvil") {
			// What is the project's changed.
			return p + " changed"
		}
		if info, err := os.Lstat(p); err == nil && info.IsDir() && p != w.root.Dir() {
			// A directory created or moved in: its files are not known,
			// and it may hold ignore files of its own.
			return p + " appeared"
		}
	}
	return ""
}

func (w *diskWatcher) excludeStamp() int64 {
	info, err := os.Stat(filepath.Join(w.root.Dir(), ".git", "info", "exclude"))
	if err != nil {
		return 0
	}
	return info.ModTime().UnixNano()
}

// full walks the workspace, watching each directory it enters when
// notifications are wanted.
func (w *diskWatcher) full(ctx context.Context) (*Snapshot, error) {
	start, err := w.root.Resolve(".")
	if err != nil {
		return nil, err
	}
	if w.watcher != nil {
		w.watcher.Close()
		w.watcher = nil
	}
	if w.notify {
		if wt, err := fswatch.New(); err == nil {
			w.watcher = wt
			wt.Add(w.root.Dir())
		}
	}
	var entries []workspace.Entry
	var deps []string
	err = w.root.Walk(ctx, start, workspace.WalkOptions{}, func(e workspace.Entry) error {
		switch {
		case e.IsDir() && workspace.IsDependencyDir(e.Abs):
			// Installed packages are inputs, never the project's files.
			deps = append(deps, e.Rel)
			return fs.SkipDir
		case e.IsDir():
			if w.watcher != nil {
				w.watcher.Add(e.Abs)
			}
		case e.Mode.IsRegular():
			entries = append(entries, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scanning the workspace: %w", err)
	}
	snap := &Snapshot{Files: statAll(entries), DependencyDirs: deps}
	snap.files = fingerprint(snap.Files)
	snap.Deps = dependencyStamps(w.root, snap)
	snap.finish()
	w.fullAt, w.exclude = time.Now(), w.excludeStamp()
	w.fulls++
	if w.watcher != nil {
		w.watcher.Reset()
	}
	return snap, nil
}

// apply returns the previous snapshot with the changed paths (absolute)
// looked at again, and what changed.
func (w *diskWatcher) apply(ctx context.Context, paths []string) (*Snapshot, map[string]int, error) {
	prev := w.prev
	changes := map[string]int{}
	deps := dependencyStamps(w.root, prev)
	if len(paths) == 0 {
		if maps.Equal(deps, prev.Deps) {
			return prev, changes, nil
		}
		snap := *prev
		snap.Deps = deps
		snap.finish()
		return &snap, changes, nil
	}
	files := maps.Clone(prev.Files)
	fp := fingerprintBytes(prev.files)
	set := func(rel string, f FileStat, ok bool) {
		old, had := files[rel]
		switch {
		case had && ok && old.Size == f.Size && old.ModTime == f.ModTime:
			return
		case had && ok:
			changes[rel] = servers.FileChanged
		case had:
			changes[rel] = servers.FileDeleted
		case ok:
			changes[rel] = servers.FileCreated
		default:
			return
		}
		if had {
			xorEntry(fp, rel, old)
			delete(files, rel)
		}
		if ok {
			xorEntry(fp, rel, f)
			files[rel] = f
		}
	}
	for _, abs := range paths {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		rel, err := w.root.Rel(abs)
		if err != nil || rel == "." || strings.HasPrefix(rel, ".git/") || rel == ".git" {
			continue
		}
		info, err := os.Lstat(abs)
		switch {
		case err != nil:
			// Gone: the file, or a directory and all it held.
			set(rel, FileStat{}, false)
			prefix := rel + "/"
			for p := range files {
				if strings.HasPrefix(p, prefix) {
					set(p, FileStat{}, false)
				}
			}
		case !info.Mode().IsRegular() || w.root.Ignored(rel, false) || w.root.InDependencyDir(rel):
			set(rel, FileStat{}, false)
		default:
			set(rel, FileStat{Size: info.Size(), ModTime: info.ModTime().UnixNano(), Abs: abs}, true)
		}
	}
	if len(changes) == 0 && maps.Equal(deps, prev.Deps) {
		return prev, changes, nil
	}
	snap := &Snapshot{Files: files, DependencyDirs: prev.DependencyDirs, files: hex.EncodeToString(fp)}
	snap.Deps = dependencyStamps(w.root, snap)
	snap.finish()
	return snap, changes, nil
}

// The fingerprint of a set of files is the XOR of a digest of each file's
// path, size and modification time: any file added, removed, resized or
// modified changes it, and a change updates it in time proportional to
// itself.
func fingerprint(files map[string]FileStat) string {
	fp := make([]byte, sha256.Size)
	for p, f := range files {
		xorEntry(fp, p, f)
	}
	return hex.EncodeToString(fp)
}

func xorEntry(fp []byte, rel string, f FileStat) {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%d", rel, f.Size, f.ModTime))
	for i := range fp {
		fp[i] ^= sum[i]
	}
}

func fingerprintBytes(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != sha256.Size {
		return make([]byte, sha256.Size)
	}
	return b
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
