package servers

import (
	"os"
	"path/filepath"
	"sync"
	"time"
)

// typeScriptPins remembers which TypeScript each workspace uses, by the
// stat of the two files that say it: which server checks a TypeScript
// file is asked for every file a check reaches, and a project's
// package.json can be large (200 KB on date-fns, where reading it for
// each of a hub's 1,000 importers took longer than checking them).
type typeScriptPins struct {
	mu sync.Mutex
	by map[string]pin // by workspace root
	// now is the clock racy stats are judged by (nil: time.Now).
	now func() time.Time
}

// pin is what a workspace's two files said, and their stats when read.
type pin struct {
	installed, manifest fileID
	major               int
	text                string
}

// fileID tells a file's versions apart without reading it: a write
// changes its change time (ctime, which no tool sets back) or its size,
// and a file put in its place (a directory or link replaced) has another
// device or inode. Where the system gives no ctime (fileChange), size and
// modification time decide, behind the racy window.
type fileID struct {
	exists         bool
	dev, ino, size uint64
	ctime, mtim    int64
}

// racyWindow is longer than any file system's clock tick.
const racyWindow = 2 * time.Second

// recent reports whether the file changed so recently that a write in
// the same tick of the clock would leave its stat as it is.
func (id fileID) recent(now time.Time) bool {
	return id.exists && now.UnixNano()-max(id.ctime, id.mtim) < int64(racyWindow)
}

func idOf(path string) fileID {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}
	}
	id := fileID{exists: true, size: uint64(fi.Size()), mtim: fi.ModTime().UnixNano()}
	id.dev, id.ino, id.ctime = fileChange(fi)
	return id
}

// of returns what projectTypeScript says for root, read again only when
// one of its files changed.
func (p *typeScriptPins) of(root string) (int, string) {
	installed := idOf(filepath.Join(root, "node_modules", "typescript", "package.json"))
	manifest := idOf(filepath.Join(root, "package.json"))
	p.mu.Lock()
	had, ok := p.by[root]
	p.mu.Unlock()
	if ok && had.installed == installed && had.manifest == manifest {
		return had.major, had.text
	}
	major, text := projectTypeScript(root)
	// A file changed in the last moments may change again within the
	// file system's clock tick, keeping its stat: it is read again until
	// its stat is older than that (git's rule for racily clean files).
	now := time.Now()
	if p.now != nil {
		now = p.now()
	}
	if !installed.recent(now) && !manifest.recent(now) {
		p.mu.Lock()
		if p.by == nil {
			p.by = map[string]pin{}
		}
		p.by[root] = pin{installed: installed, manifest: manifest, major: major, text: text}
		p.mu.Unlock()
	}
	return major, text
}
