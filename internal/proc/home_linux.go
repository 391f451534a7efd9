package proc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// coverHome mounts an empty directory over home, then puts back each of
// shown and caches (places inside home) as it is: taken as detached
// copies of their mounts before the cover (open_tree), moved onto places
// made for them in it (move_mount); the cover is then made read-only, so
// the program writes nowhere in the home but where it was shown. A
// caches entry missing on the host is made first (0700), as the program
// would have made it. A place that does not exist, or lies outside the
// home, is not put back (outside, it was never covered).
func coverHome(home string, shown, caches []string) error {
	realHome, err := filepath.EvalSymlinks(home)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if realHome == "/" {
		return nil
	}
	for _, c := range caches {
		if inHome(home, c) || inHome(realHome, c) {
			_ = os.MkdirAll(c, 0o700)
		}
	}
	all := append(slices.Clone(shown), caches...)
	places := homePlaces(realHome, all)
	links := homeLinks(home, realHome, all, places)
	if slices.ContainsFunc(places, func(p homePlace) bool { return p.path == realHome }) {
		// Shown whole (the workspace is the home): nothing to cover.
		return nil
	}
	taken := make([]int, len(places))
	defer func() {
		for _, fd := range taken {
			if fd > 0 {
				unix.Close(fd)
			}
		}
	}()
	for i, p := range places {
		fd, err := unix.OpenTree(unix.AT_FDCWD, p.path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
			// A kernel before 5.2, or a seccomp profile that refuses the
			// call: the home stays as it is, its secret places hidden by
			// name only; the server's log says so.
			return fmt.Errorf("%w: %v", errNoDetachedMounts, err)
		}
		if err != nil {
			return fmt.Errorf("taking %s: %w", p.path, err)
		}
		taken[i] = fd
	}
	if err := unix.Mount("tmpfs", realHome, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=1m,mode=0755"); err != nil {
		return err
	}
	for _, l := range links {
		if err := os.MkdirAll(filepath.Dir(l.path), 0o755); err != nil {
			return fmt.Errorf("making room for %s: %w", l.path, err)
		}
		if err := os.Symlink(l.target, l.path); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("making the link %s again: %w", l.path, err)
		}
	}
	for i, p := range places {
		if err := makePlace(p); err != nil {
			return fmt.Errorf("making room for %s: %w", p.path, err)
		}
		if err := unix.MoveMount(taken[i], "", unix.AT_FDCWD, p.path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("putting back %s: %w", p.path, err)
		}
	}
	return unix.Mount("", realHome, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "")
}

// errNoDetachedMounts says the kernel cannot take a place to put back.
var errNoDetachedMounts = errors.New("the kernel gives no open_tree (Linux 5.2)")

// homePlace is a place inside the home to put back, and its kind.
type homePlace struct {
	path string
	dir  bool
}

// homePlaces resolves places to what they name inside realHome, shortest
// first, without one that another holds (put back with it).
func homePlaces(realHome string, places []string) []homePlace {
	var out []homePlace
	for _, p := range places {
		real, err := filepath.EvalSymlinks(p)
		if err != nil || !inHome(realHome, real) {
			continue
		}
		info, err := os.Stat(real)
		if err != nil {
			continue
		}
		out = append(out, homePlace{real, info.IsDir()})
	}
	slices.SortFunc(out, func(a, b homePlace) int { return len(a.path) - len(b.path) })
	var kept []homePlace
	for _, p := range out {
		if !slices.ContainsFunc(kept, func(k homePlace) bool { return inHome(k.path, p.path) }) {
			kept = append(kept, p)
		}
	}
	return kept
}

// homeLink is a link inside the home on the way to a shown place (~/go
// linking to /data/go), made again in the cover: the program names the
// place by the link.
type homeLink struct{ path, target string }

// homeLinks returns the links inside realHome that the paths of shown
// (named under home or realHome) go through, outermost first, but those
// inside a place put back (they come back with it).
func homeLinks(home, realHome string, shown []string, places []homePlace) []homeLink {
	var out []homeLink
	seen := map[string]bool{}
	for _, p := range shown {
		rel, err := filepath.Rel(home, p)
		if err != nil || !filepath.IsLocal(rel) {
			if rel, err = filepath.Rel(realHome, p); err != nil || !filepath.IsLocal(rel) {
				continue
			}
		}
		cur := realHome
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			next := filepath.Join(cur, part)
			info, err := os.Lstat(next)
			if err != nil {
				break
			}
			if info.Mode()&os.ModeSymlink == 0 {
				cur = next
				continue
			}
			target, err := os.Readlink(next)
			if err != nil {
				break
			}
			inPlace := slices.ContainsFunc(places, func(pl homePlace) bool { return inHome(pl.path, next) })
			if !seen[next] && !inPlace {
				seen[next] = true
				out = append(out, homeLink{next, target})
			}
			if cur, err = filepath.EvalSymlinks(next); err != nil || !inHome(realHome, cur) {
				break // what lies beyond is outside the cover
			}
		}
	}
	return out
}

// makePlace makes, in the cover, an empty node of p's kind for its mount
// to land on.
func makePlace(p homePlace) error {
	if err := os.MkdirAll(filepath.Dir(p.path), 0o755); err != nil {
		return err
	}
	if p.dir {
		// A link made again may have made it already, as its folder.
		return os.MkdirAll(p.path, 0o755)
	}
	f, err := os.OpenFile(p.path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// inHome reports whether p is home or lies inside it.
func inHome(home, p string) bool {
	return p == home || strings.HasPrefix(p, home+"/")
}
