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
		if inHome(realHome, c) {
			_ = os.MkdirAll(c, 0o700)
		}
	}
	places := homePlaces(realHome, append(slices.Clone(shown), caches...))
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

// makePlace makes, in the cover, an empty node of p's kind for its mount
// to land on.
func makePlace(p homePlace) error {
	if err := os.MkdirAll(filepath.Dir(p.path), 0o755); err != nil {
		return err
	}
	if p.dir {
		return os.Mkdir(p.path, 0o755)
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
