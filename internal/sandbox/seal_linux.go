package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The seal: the command gets a root of its own, assembled in a tmpfs and
// pivoted into, where
//   - the host's system directories (systemDirs: programs, libraries,
//     the system's configuration, written only by root) are bound
//     read-only; every other top-level directory (the homes, /var, /run,
//     /srv, /mnt, a data disk) is an empty directory,
//   - the visible paths (the toolchains and their caches, wherever they
//     are: a home, /tmp, /var) are bound back read-only at their own
//     place,
//   - the shadow tree sits on the workspace's path, writable,
//   - /tmp and /dev/shm are private tmpfs of a bounded size (gone with
//     the namespace),
//   - /dev holds only the usual device nodes,
//   - /proc is a fresh procfs of the command's PID namespace (no host
//     process, no host command line),
//   - the hidden paths (the user's runtime directory, which holds the
//     daemon's socket; Anvil's state and configuration; credential
//     stores) are empty, even inside a visible path,
//   - a socket file in a system directory is covered by an empty node,
//   - the declared writable directories (caches a runner needs) are bound
//     writable, and the report directory at [ReportDir].
//
// So no path-named Unix socket of the host is reachable: /run, /var/run,
// the homes, /tmp and /dev/shm are not the host's, and the system
// directories are searched for sockets (socketScanDirs). What the visible
// paths hold is not searched: the toolchains' own directories.
//
// The command has no CAP_SYS_ADMIN afterwards (see keptCaps), so it can
// neither unmount nor remount any of it.

// socketScanDirs are the system directories searched for socket files at
// each run; the others (/usr, /lib, /nix, ...) hold what packages install,
// and searching them would take seconds. A directory with more than
// socketScanLimit entries is not shown at all (its toolchains only
// through the visible paths).
var socketScanDirs = []string{"/etc", "/opt"}

const socketScanLimit = 20000

// devNodes are the device nodes the command's /dev holds.
var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

// devLinks are /dev's usual symbolic links.
var devLinks = map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2", "ptmx": "pts/ptmx"}

// seal assembles the command's root in newRoot (an empty directory),
// mounts the tree there with mount, applies the change set, and pivots
// into it. mount puts the shadow tree on its argument (the workspace's
// path under newRoot).
func seal(hs helperSpec, newRoot string, mount func(at string) (string, error)) (string, error) {
	if err := unix.Mount("tmpfs", newRoot, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755"); err != nil {
		return "", fmt.Errorf("the sealed root: %w", err)
	}
	in := func(p string) string { return filepath.Join(newRoot, p) }
	top, err := os.ReadDir("/")
	if err != nil {
		return "", err
	}
	var sockets []string
	for _, e := range top {
		name := e.Name()
		src := "/" + name
		switch {
		case name == "proc" || name == "dev" || name == "tmp":
			continue // made fresh below
		case e.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err != nil {
				return "", err
			}
			if err := os.Symlink(target, in(src)); err != nil {
				return "", err
			}
			continue
		case !e.IsDir():
			continue
		}
		show := systemDirs[name]
		if show && slices.Contains(socketScanDirs, src) {
			found, ok := findSockets(src)
			show = ok
			sockets = append(sockets, found...)
		}
		if !show {
			// An empty directory: what the visible paths and the
			// workspace need of it is bound back below.
			if err := os.Mkdir(in(src), 0o755); err != nil {
				return "", err
			}
			continue
		}
		if err := bindReadOnly(src, in(src), true); err != nil {
			return "", err
		}
	}
	if err := makeDev(in("/dev"), hs.Limits.Tmp); err != nil {
		return "", fmt.Errorf("/dev: %w", err)
	}
	if err := os.Mkdir(in("/proc"), 0o555); err != nil {
		return "", err
	}
	// A procfs of the command's PID namespace: the helper is its PID 1.
	if err := unix.Mount("proc", in("/proc"), "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return "", fmt.Errorf("a procfs of its own: %w", err)
	}
	if err := privateTmpfs(in("/tmp"), "mode=1777", hs.Limits.Tmp); err != nil {
		return "", err
	}
	for _, v := range hs.Visible {
		if err := bindVisible(v, in(v)); err != nil {
			return "", fmt.Errorf("showing %s: %w", v, err)
		}
	}
	at := in(hs.Root)
	if err := os.MkdirAll(at, 0o755); err != nil {
		return "", fmt.Errorf("the workspace's path in the sealed root: %w", err)
	}
	mech, err := mount(at)
	if err != nil {
		return "", err
	}
	if err := apply(hs, at); err != nil {
		return "", err
	}
	for _, h := range hs.Hidden {
		if under(hs.Root, h) {
			continue // the workspace stays where it is
		}
		if err := hide(h, in(h)); err != nil {
			return "", fmt.Errorf("hiding %s: %w", h, err)
		}
	}
	for _, s := range sockets {
		if err := unix.Mount("/dev/null", in(s), "", unix.MS_BIND, ""); err != nil {
			return "", fmt.Errorf("covering the socket %s: %w", s, err)
		}
	}
	for _, w := range hs.Writable {
		if err := bindWritable(w, in(w)); err != nil {
			return "", fmt.Errorf("binding %s writable: %w", w, err)
		}
	}
	if hs.Reports != "" {
		if err := bindWritable(hs.Reports, in(ReportDir)); err != nil {
			return "", fmt.Errorf("the report directory: %w", err)
		}
	}
	if err := pivot(newRoot); err != nil {
		return "", err
	}
	return mech, nil
}

// findSockets returns the socket files below dir, and false when dir has
// more than socketScanLimit entries. What the user cannot read is not
// searched; what it cannot search, it cannot connect to either.
func findSockets(dir string) ([]string, bool) {
	var out []string
	n := 0
	errTooMany := errors.New("too many entries")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > socketScanLimit {
			return errTooMany
		}
		if d.Type()&fs.ModeSocket != 0 {
			out = append(out, p)
		}
		return nil
	})
	return out, err == nil
}

// bindVisible binds the host's path src read-only at dst, its place in
// the sealed root, creating the directories above it; a link is followed
// to what it names. Missing is nothing to show; a place already shown
// (below a system directory or an earlier visible path) is left as it is.
func bindVisible(src, dst string) error {
	info, err := os.Stat(src)
	if err != nil {
		return nil
	}
	if _, err := os.Lstat(dst); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		if errors.Is(err, unix.EROFS) {
			return nil // below a path shown already
		}
		return err
	}
	real, err := filepath.EvalSymlinks(src)
	if err != nil {
		return nil
	}
	return bindReadOnly(real, dst, info.IsDir())
}

// bindReadOnly binds src (with everything mounted below it) at dst, read
// only throughout.
func bindReadOnly(src, dst string, dir bool) error {
	if dir {
		if err := os.Mkdir(dst, 0o755); err != nil {
			return err
		}
	} else if err := touch(dst); err != nil {
		return err
	}
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("binding %s: %w", src, err)
	}
	return readOnly(dst)
}

// readOnly makes the mount at p and every mount below it read-only.
func readOnly(p string) error {
	attr := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	err := unix.MountSetattr(unix.AT_FDCWD, p, unix.AT_RECURSIVE, attr)
	if errors.Is(err, unix.ENOSYS) {
		return errors.New("the kernel has no mount_setattr (Linux 5.12 or later is needed to seal the shadow tree)")
	}
	if err != nil {
		return fmt.Errorf("making %s read-only: %w", p, err)
	}
	return nil
}

// makeDev gives the command a /dev of the usual nodes, bound from the
// host's, and a private /dev/shm.
func makeDev(dev string, size int64) error {
	if err := os.Mkdir(dev, 0o755); err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", dev, "tmpfs", unix.MS_NOSUID, "mode=0755"); err != nil {
		return err
	}
	for _, n := range devNodes {
		src := "/dev/" + n
		if _, err := os.Stat(src); err != nil {
			continue
		}
		if err := touch(filepath.Join(dev, n)); err != nil {
			return err
		}
		if err := unix.Mount(src, filepath.Join(dev, n), "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("binding %s: %w", src, err)
		}
	}
	for name, target := range devLinks {
		if err := os.Symlink(target, filepath.Join(dev, name)); err != nil {
			return err
		}
	}
	return privateTmpfs(filepath.Join(dev, "shm"), "mode=1777", size)
}

// privateTmpfs mounts an empty tmpfs at p of at most size bytes (0: the
// kernel's default, half the memory).
func privateTmpfs(p, opts string, size int64) error {
	if size > 0 {
		opts += ",size=" + strconv.FormatInt(size, 10)
	}
	if err := os.MkdirAll(p, 0o755); err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", p, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("a private %s: %w", filepath.Base(p), err)
	}
	return nil
}

// hide covers dst (src's place in the sealed root) with an empty
// read-only directory, or an empty file for a file. Missing is hidden.
func hide(src, dst string) error {
	info, err := os.Lstat(dst)
	if err != nil || info.Mode()&os.ModeSymlink != 0 {
		// Absent from the sealed root (under /tmp, say), or a link
		// whose target is hidden in its own right.
		return nil
	}
	if !info.IsDir() {
		return unix.Mount("/dev/null", dst, "", unix.MS_BIND, "")
	}
	if err := unix.Mount("tmpfs", dst, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC|unix.MS_RDONLY, "mode=0755,size=4k"); err != nil {
		return err
	}
	return nil
}

// bindWritable binds the host directory src at dst, writable.
func bindWritable(src, dst string) error {
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", src)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	return unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, "")
}

// pivot makes newRoot the root and detaches the old one, so nothing of the
// host's tree is reachable but what was bound in; the new root's own
// directory is read-only.
func pivot(newRoot string) error {
	old := filepath.Join(newRoot, ".old-root")
	if err := os.Mkdir(old, 0o700); err != nil {
		return err
	}
	if err := unix.PivotRoot(newRoot, old); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := os.Chdir("/"); err != nil {
		return err
	}
	if err := unix.Unmount("/.old-root", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detaching the host's root: %w", err)
	}
	if err := os.Remove("/.old-root"); err != nil {
		return err
	}
	if err := unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return fmt.Errorf("making the sealed root read-only: %w", err)
	}
	return nil
}

func touch(p string) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// under reports whether p is dir or lies below it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
