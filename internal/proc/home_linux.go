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
// made for them in it (move_mount); the cover is then made read-only.
// The shown places come back read-only too, so the program writes
// nowhere in the home but its caches: a toolchain or a setting it could
// change would run in every other program the user starts. A caches
// entry missing on the host is made first (0700), as the program would
// have made it. A place that does not exist, or lies outside the home,
// is not put back (outside, it was never covered).
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
	places := homePlaces(realHome, shown, caches)
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
		if !p.write {
			// A kernel before 5.12 has no mount_setattr (or a profile
			// refuses it): the place comes back as it is, which still
			// covers the rest of the home.
			if err := readOnly(fd); err != nil && !unsupported(err) {
				return fmt.Errorf("making %s read-only: %w", p.path, err)
			}
		}
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

// homePlace is a place inside the home to put back, its kind, and
// whether the program writes it.
type homePlace struct {
	path  string
	dir   bool
	write bool
}

// homePlaces resolves shown and caches to what they name inside
// realHome, shortest first, without one that a place of the same access
// holds (put back with it): a cache inside a shown place comes back
// writable on top of it, a shown place inside a cache read-only.
func homePlaces(realHome string, shown, caches []string) []homePlace {
	var out []homePlace
	for i, p := range append(slices.Clone(shown), caches...) {
		real, err := filepath.EvalSymlinks(p)
		if err != nil || !inHome(realHome, real) {
			continue
		}
		info, err := os.Stat(real)
		if err != nil {
			continue
		}
		out = append(out, homePlace{real, info.IsDir(), i >= len(shown)})
	}
	slices.SortStableFunc(out, func(a, b homePlace) int { return len(a.path) - len(b.path) })
	var kept []homePlace
	for _, p := range out {
		// The innermost kept place that holds p decides what p is under.
		var holder *homePlace
		for i := range kept {
			if inHome(kept[i].path, p.path) {
				holder = &kept[i]
			}
		}
		if holder == nil || holder.write != p.write && holder.path != p.path {
			kept = append(kept, p)
			continue
		}
		if holder.path == p.path && p.write {
			holder.write = true // shown and written: a cache
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
	if _, err := os.Lstat(p.path); err == nil {
		return nil // inside a place put back already
	}
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

// readOnly makes the detached mount tree fd read-only, every mount of
// it, keeping its other flags (which a user namespace may not change).
func readOnly(fd int) error {
	return unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
}

// inHome reports whether p is home or lies inside it.
func inHome(home, p string) bool {
	return p == home || strings.HasPrefix(p, home+"/")
}
