package tsconfig

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Projects finds the project that owns each file of a workspace, loading
// each project file once (again when it changes on disk).
type Projects struct {
	root string

	mu     sync.Mutex
	loaded map[string]loadedConfig // by path

	// In a pass (see Pass): the projects it was taken of, which load and
	// keep each file, and what the pass has asked of them, by path.
	shared *Projects
	inPass map[string]loadedConfig
}

type loadedConfig struct {
	// read are the project file and every file its extends chain named,
	// as they were when it was loaded: a base that changes changes the
	// project as the project file does.
	read []fileStamp
	cfg  *Config // nil: the file does not parse
}

// fileStamp is a file as its stat saw it (absent: no file there).
type fileStamp struct {
	path        string
	size, mtime int64
	absent      bool
}

func stampOf(path string) fileStamp {
	st, err := os.Stat(path)
	if err != nil {
		return fileStamp{path: path, absent: true}
	}
	return fileStamp{path: path, size: st.Size(), mtime: st.ModTime().UnixNano()}
}

// current reports whether every file l read is as it was.
func (l loadedConfig) current() bool {
	for _, s := range l.read {
		if stampOf(s.path) != s {
			return false
		}
	}
	return true
}

// NewProjects returns the projects of the workspace at root (absolute).
func NewProjects(root string) *Projects {
	return &Projects{root: filepath.Clean(root), loaded: map[string]loadedConfig{}}
}

// maxReferenceDepth bounds how far references are followed from the
// nearest project file, as a guard against cycles.
const maxReferenceDepth = 8

// Owner returns the project that compiles the file at abs, the way
// tsserver picks one: the nearest tsconfig.json (or jsconfig.json) above
// the file that includes it, looking also in the projects it references
// (a solution-style tsconfig.json with "files": [] includes nothing itself),
// then further up. It returns nil for a file no project includes.
func (p *Projects) Owner(abs string) *Config {
	for dir := filepath.Dir(abs); strings.HasPrefix(dir, p.root); dir = filepath.Dir(dir) {
		for _, name := range []string{"tsconfig.json", "jsconfig.json"} {
			if c := p.Load(filepath.Join(dir, name)); c != nil {
				if owner := p.including(c, abs, map[string]bool{}, 0); owner != nil {
					return owner
				}
			}
		}
		if dir == p.root || filepath.Dir(dir) == dir {
			break
		}
	}
	return nil
}

func (p *Projects) including(c *Config, abs string, seen map[string]bool, depth int) *Config {
	if seen[c.Path] || depth > maxReferenceDepth {
		return nil
	}
	seen[c.Path] = true
	if c.Includes(abs) {
		return c
	}
	for _, ref := range c.References {
		if rc := p.Load(ref); rc != nil {
			if owner := p.including(rc, abs, seen, depth+1); owner != nil {
				return owner
			}
		}
	}
	return nil
}

// Pass returns p for one pass over a disk state (the resolution of
// every import of a workspace): each project file is looked at once in
// the pass, where p stats it again at every call. A resolution asks for
// the owner of every file at every import, and a stat per directory
// level at each ask cost a real project of 1,500 files about 100 ms per
// check. A project file changed during the pass is seen by the next.
func (p *Projects) Pass() *Projects {
	return &Projects{root: p.root, shared: p, inPass: map[string]loadedConfig{}}
}

// Current reports whether every project file a pass looked at (there or
// not), and every base they extend, is still as it was: a pass kept for
// a later one (reach's kept resolver) is taken only then.
func (p *Projects) Current() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.inPass {
		if !l.current() {
			return false
		}
	}
	return true
}

// Load returns the project file at path, or nil if there is none or it
// does not parse.
func (p *Projects) Load(path string) *Config {
	if p.shared != nil {
		p.mu.Lock()
		l, ok := p.inPass[path]
		p.mu.Unlock()
		if !ok {
			l = p.shared.load(path)
			p.mu.Lock()
			p.inPass[path] = l
			p.mu.Unlock()
		}
		return l.cfg
	}
	return p.load(path).cfg
}

// load returns the project file at path as loaded, with what it read.
func (p *Projects) load(path string) loadedConfig {
	if st, err := os.Stat(path); err != nil || st.IsDir() {
		return loadedConfig{read: []fileStamp{stampOf(path)}}
	}
	p.mu.Lock()
	l, ok := p.loaded[path]
	p.mu.Unlock()
	if ok && l.current() {
		return l
	}
	// Stamped before reading, so that a write during the read is seen
	// by the next Load.
	read := []fileStamp{stampOf(path)}
	for _, base := range Extended(path) {
		read = append(read, stampOf(base))
	}
	cfg, err := Load(path)
	if err != nil {
		cfg = nil
	}
	l = loadedConfig{read: read, cfg: cfg}
	p.mu.Lock()
	p.loaded[path] = l
	p.mu.Unlock()
	return l
}

// Nearest returns the configuration a TypeScript server opens a file of
// dir in: the tsconfig.json (or jsconfig.json) nearest above it, in dir
// itself first, up to root; "" when there is none. A project that
// includes the file through another configuration (a solution's
// references) is Owner's answer, not this one's.
func Nearest(root, dir string) string {
	for {
		for _, name := range []string{"tsconfig.json", "jsconfig.json"} {
			if p := filepath.Join(dir, name); isFile(p) {
				return p
			}
		}
		if dir == root || !strings.HasPrefix(dir, root) {
			return ""
		}
		dir = filepath.Dir(dir)
	}
}
