package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/anvil-dev/anvil/internal/proc"
)

// Main is the helper: when the process was started by [Run] it makes the
// shadow tree and executes the command in its place, never returning;
// otherwise it returns at once. The anvil binary (and a test binary that
// runs [Run]) calls it first thing in main, with the process's
// environment, where [Run] names the helper's spec. It is also the
// helper that contains a program started on the host ([proc.Main]).
func Main(getenv func(string) string) {
	proc.Main(getenv)
	path := getenv(specEnv)
	if path == "" {
		return
	}
	err := helper(path)
	// Only a failure to make the tree or to start the command gets here.
	fmt.Fprintf(os.Stderr, "\n%s%v\n", setupMarker, err)
	os.Exit(setupFailed)
}

// keptCaps are the capabilities the command keeps as root of its user
// namespace: those a build or a test run as root may expect over its own
// files. Without CAP_SYS_ADMIN it cannot unmount the shadow tree to reach
// the files beneath.
var keptCaps = map[uintptr]bool{
	unix.CAP_CHOWN: true, unix.CAP_DAC_OVERRIDE: true, unix.CAP_DAC_READ_SEARCH: true, unix.CAP_FOWNER: true,
	unix.CAP_FSETID: true, unix.CAP_KILL: true, unix.CAP_SETGID: true, unix.CAP_SETUID: true, unix.CAP_NET_BIND_SERVICE: true,
}

func helper(path string) error {
	// Capabilities are a thread's, not the process's: the bounding set
	// dropped below is that of the thread that drops it, and the command
	// gets the caps of the thread that execs it. Unlocked, the goroutine
	// may move to another thread between the two (more often on a busy
	// machine), and the command ran as full root of its namespace, able to
	// unmount the shadow tree.
	runtime.LockOSThread()
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var hs helperSpec
	if err := json.Unmarshal(data, &hs); err != nil {
		return err
	}
	// Nothing mounted here may reach the parent's mount namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	mech, err := seal(hs, hs.NewRoot, func(at string) (string, error) { return makeTree(hs, at) })
	if err != nil {
		return err
	}
	if !hs.Network {
		if err := loopbackUp(); err != nil {
			return fmt.Errorf("loopback: %w", err)
		}
	}
	for c := uintptr(0); c <= unix.CAP_LAST_CAP; c++ {
		if !keptCaps[c] {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err != nil && err != unix.EINVAL {
				return fmt.Errorf("dropping capability %d: %w", c, err)
			}
		}
	}
	if err := setLimits(hs.Limits); err != nil {
		return err
	}
	dir := filepath.Join(hs.Root, filepath.FromSlash(hs.Dir))
	if err := os.Chdir(dir); err != nil {
		return err
	}
	argv0, err := LookPath(hs.Argv[0], hs.Env)
	if err != nil {
		return fmt.Errorf("%s: %w", hs.Argv[0], err)
	}
	fmt.Fprintf(os.Stdout, "%s%s %s\n", setupDone, time.Since(hs.Start), mech)
	return syscall.Exec(argv0, hs.Argv, hs.Env)
}

// setLimits bounds the command (and all it starts) by l's rlimits, and
// writes no core dump: a crash's memory is no report.
func setLimits(l Limits) error {
	for _, r := range []struct {
		res  int
		name string
		v    int64
	}{{unix.RLIMIT_DATA, BoundMemory, l.Memory}, {unix.RLIMIT_NPROC, BoundProcesses, l.Processes}, {unix.RLIMIT_FSIZE, BoundFileSize, l.FileSize}, {unix.RLIMIT_CORE, "core", 0}} {
		if r.v < 0 {
			continue // no bound
		}
		var cur unix.Rlimit
		if err := unix.Getrlimit(r.res, &cur); err != nil {
			return fmt.Errorf("reading the %s limit: %w", r.name, err)
		}
		// Never above what the user already has (raising needs a
		// privilege the helper lacks).
		v := min(uint64(r.v), cur.Max)
		if err := unix.Setrlimit(r.res, &unix.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("bounding %s: %w", r.name, err)
		}
	}
	return nil
}

// makeTree puts a writable view of the workspace at at (the workspace's
// path in the sealed root): an overlayfs, else (or when asked) a copy.
func makeTree(hs helperSpec, at string) (string, error) {
	var overlayErr error
	if hs.Mechanism == "" || hs.Mechanism == MechanismOverlay {
		opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", escape(hs.Root), escape(hs.Upper), escape(hs.Work))
		// userxattr: as an unprivileged user, overlayfs keeps its metadata
		// in user.* attributes; without it directory renames fail (EXDEV).
		overlayErr = unix.Mount("overlay", at, "overlay", 0, opts+",userxattr")
		if overlayErr != nil && unix.Mount("overlay", at, "overlay", 0, opts) == nil {
			overlayErr = nil
		}
		if overlayErr == nil {
			return MechanismOverlay, nil
		}
		if hs.Mechanism == MechanismOverlay {
			return "", fmt.Errorf("mounting overlayfs on %s: %w", hs.Root, overlayErr)
		}
	}
	if err := copyTree(hs.Root, hs.Tree); err != nil {
		return "", fmt.Errorf("copying the tree (overlayfs: %v): %w", overlayErr, err)
	}
	if err := unix.Mount(hs.Tree, at, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return "", fmt.Errorf("binding the copy over %s (overlayfs: %v): %w", hs.Root, overlayErr, err)
	}
	return MechanismCopy, nil
}

// heavyDirs are not copied but bound read-only from the tree: dependency
// and build directories, large and rarely what a change touches.
var heavyDirs = map[string]bool{"node_modules": true, ".git": true, ".venv": true, "venv": true, "target": true, ".gradle": true}

// copyTree copies src into dst (empty): files cloned where the file
// system can (FICLONE) and copied otherwise, modes kept, symlinks as
// symlinks, heavy directories bound read-only.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir() && rel != "." && heavyDirs[d.Name()]:
			if err := os.MkdirAll(to, 0o755); err != nil {
				return err
			}
			if err := unix.Mount(p, to, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				return err
			}
			if err := unix.Mount("", to, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
				return err
			}
			// A socket bound in would be reachable (a copy has none).
			return coverSockets(p, to)
		case d.IsDir():
			return os.MkdirAll(to, info.Mode().Perm()|0o700)
		case d.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.Type().IsRegular():
			return cloneFile(p, to, info.Mode().Perm())
		}
		return nil // sockets, devices, FIFOs: not part of a build
	})
}

// coverSockets covers each socket file below src, bound at dst, with an
// empty node; SkipDir when done.
func coverSockets(src, dst string) error {
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Type()&os.ModeSocket == 0 {
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		return unix.Mount("/dev/null", filepath.Join(dst, rel), "", unix.MS_BIND, "")
	})
	if err != nil {
		return fmt.Errorf("covering the sockets in %s: %w", src, err)
	}
	return filepath.SkipDir
}

func cloneFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if unix.IoctlFileClone(int(out.Fd()), int(in.Fd())) != nil {
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
	}
	return out.Close()
}

// apply writes the change set into the tree mounted at at.
func apply(hs helperSpec, at string) error {
	// Through an os.Root: a link in the tree (the project's own, or one
	// a change names) cannot lead a write or a delete out of it while the
	// host is still writable.
	root, err := os.OpenRoot(at)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, c := range hs.Changes {
		p := filepath.FromSlash(c.Path)
		if c.Delete {
			if err := root.RemoveAll(p); err != nil {
				return fmt.Errorf("deleting %s in the shadow tree: %w", c.Path, err)
			}
			continue
		}
		content, err := os.ReadFile(c.Source)
		if err != nil {
			return err
		}
		if err := root.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("writing %s in the shadow tree: %w", c.Path, err)
		}
		mode := os.FileMode(0o644)
		if st, err := root.Stat(p); err == nil {
			mode = st.Mode().Perm()
		}
		if err := root.WriteFile(p, content, mode); err != nil {
			return fmt.Errorf("writing %s in the shadow tree: %w", c.Path, err)
		}
	}
	return nil
}

// loopbackUp brings up the new network namespace's loopback interface,
// so tests that listen on localhost work without the network.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	ifr.SetUint16(unix.IFF_UP | unix.IFF_LOOPBACK | unix.IFF_RUNNING)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// escape quotes a path for overlayfs's comma-separated options.
func escape(p string) string {
	out := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		if p[i] == ',' || p[i] == '\\' || p[i] == ':' {
			out = append(out, '\\')
		}
		out = append(out, p[i])
	}
	return string(out)
}
