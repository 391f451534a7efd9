// Package fswatch tells which paths under a directory changed since it was
// last asked, from the kernel's file-system notifications (inotify), so
// that a long-lived process can keep a snapshot of a large tree up to date
// in time proportional to the change rather than to the tree.
//
// Events are read synchronously when asked ([Watcher.Changes]): inotify
// queues an event during the system call that makes the change, so every
// change completed before the call is in what it returns. When the kernel
// dropped events (its queue overflowed) or a watch could not be added, the
// answer says so and the caller scans in full.
package fswatch

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mask is what a directory's watch reports: its entries created, deleted,
// moved in or out, written or with changed attributes, and the directory
// itself going away.
const mask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK

// ErrUnavailable is returned where notifications cannot be had.
var ErrUnavailable = errors.New("fswatch: file-system notifications are unavailable")

// Watcher watches a set of directories.
type Watcher struct {
	mu    sync.Mutex
	fd    int
	dirs  map[int]string // watch descriptor → absolute directory
	byDir map[string]int
	// lost is set once an event may have been missed (a queue overflow, a
	// watch that could not be added); it stays set until Reset.
	lost   string
	closed bool
}

// New returns a watcher with no directories.
func New() (*Watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return &Watcher{fd: fd, dirs: map[int]string{}, byDir: map[string]int{}}, nil
}

// Add watches the directory abs (not what is below it). A directory that
// cannot be watched (the user's watch limit, permissions) marks the
// watcher as having lost events, so the caller scans in full.
func (w *Watcher) Add(abs string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if _, ok := w.byDir[abs]; ok {
		return
	}
	wd, err := unix.InotifyAddWatch(w.fd, abs, mask)
	if err != nil {
		if !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) {
			w.lost = fmt.Sprintf("cannot watch %s: %v", abs, err)
		}
		return
	}
	w.dirs[wd] = abs
	w.byDir[abs] = wd
}

// Watched returns how many directories are watched.
func (w *Watcher) Watched() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.byDir)
}

// Changes is what happened since the last call.
type Changes struct {
	// Paths changed: created, written, removed, moved, their attributes
	// changed (absolute). A directory among them may hold new entries the
	// caller has not seen.
	Paths []string
	// Lost, when not empty, says why some changes may be missing: the
	// caller must scan in full (then call Reset).
	Lost string
}

// Changes returns the paths changed since the last call, reading every
// event the kernel has queued.
func (w *Watcher) Changes() Changes {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return Changes{Lost: "closed"}
	}
	seen := map[string]bool{}
	var out Changes
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(w.fd, buf)
		if err != nil {
			if !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR) {
				w.lost = "reading notifications: " + err.Error()
			}
			if errors.Is(err, unix.EINTR) {
				continue
			}
			break
		}
		if n <= 0 {
			break
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			nameLen := int(ev.Len)
			name := ""
			if nameLen > 0 {
				raw := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+nameLen]
				name = strings.TrimRight(string(raw), "\x00")
			}
			off += unix.SizeofInotifyEvent + nameLen
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				w.lost = "the kernel's notification queue overflowed"
				continue
			}
			dir, ok := w.dirs[int(ev.Wd)]
			if !ok {
				continue
			}
			if ev.Mask&unix.IN_IGNORED != 0 {
				// The watch is gone (its directory was removed).
				delete(w.dirs, int(ev.Wd))
				delete(w.byDir, dir)
				continue
			}
			p := dir
			if name != "" {
				p = filepath.Join(dir, name)
			}
			if !seen[p] {
				seen[p] = true
				out.Paths = append(out.Paths, p)
			}
		}
	}
	out.Lost = w.lost
	return out
}

// Reset clears the lost mark after the caller scanned in full.
func (w *Watcher) Reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lost = ""
}

// Close releases the watches.
func (w *Watcher) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.closed = true
		unix.Close(w.fd)
	}
}
