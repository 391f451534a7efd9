package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// Main is the containment helper: started by [Start] for a contained
// spec, it hides what it was told and executes the program in its place,
// never returning; otherwise it returns at once. A binary that contains
// processes calls it first thing in main, with its environment.
func Main(getenv func(string) string) {
	data := getenv(containEnv)
	if data == "" {
		return
	}
	err := contain(data)
	// Only a failure to hide or to start the program gets here.
	fmt.Fprintf(os.Stderr, "anvil: containing the process: %v\n", err)
	os.Exit(ContainFailed)
}

func contain(data string) error {
	// The capability bounding set is the thread's: the program must be
	// executed by the thread that dropped it.
	runtime.LockOSThread()
	var cs containSpec
	if err := json.Unmarshal([]byte(data), &cs); err != nil {
		return err
	}
	if cs.Path == "" || len(cs.Argv) == 0 {
		return errors.New("no program")
	}
	own, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return err
	}
	if own == cs.ParentMounts {
		// The kernel refused namespaces (a container without the
		// privilege): mounting here would change the host's view. The
		// program runs as it would without Anvil's cover, and the log
		// says so; its process is said to lead a process group only.
		fmt.Fprintf(os.Stderr, "anvil: %s runs uncontained: the kernel gave it no mount namespace of its own\n", cs.Argv[0])
	} else if err := cover(cs); err != nil {
		return err
	}
	if cs.Nice > 0 {
		// This thread's: the one that executes the program (who 0).
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, cs.Nice)
	}
	return syscall.Exec(cs.Path, cs.Argv, cs.Env)
}

// cover covers the home but what cs shows and hides each of cs.Hidden
// in this process's own mount namespace, then drops every capability, so
// that nothing the program runs can uncover them (as root without a user
// namespace of its own it would otherwise keep CAP_SYS_ADMIN); a server
// needs no privilege.
func cover(cs containSpec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	// The working directory was entered before the cover: entered again
	// by its name, it is what the program may see of it.
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	if cs.Home != "" {
		err = coverHome(cs.Home, cs.Shown, cs.Caches)
		if errors.Is(err, errNoDetachedMounts) {
			fmt.Fprintf(os.Stderr, "anvil: %s sees the home but its credential stores: %v\n", cs.Argv[0], err)
		} else if err != nil {
			return fmt.Errorf("covering the home: %w", err)
		}
	}
	for _, p := range cs.ReadOnly {
		if err := keepReadOnly(p, cs.Caches); err != nil {
			return fmt.Errorf("keeping %s read-only: %w", p, err)
		}
	}
	if err := os.Chdir(wd); err != nil {
		return fmt.Errorf("entering %s after the cover: %w", wd, err)
	}
	for _, p := range cs.Hidden {
		if err := hide(p); err != nil {
			return fmt.Errorf("hiding %s: %w", p, err)
		}
	}
	// Root keeps whatever the bounding set allows across the exec;
	// another user keeps nothing but the ambient set.
	for c := uintptr(0); os.Geteuid() == 0 && c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("dropping capability %d: %w", c, err)
		}
	}
	// The right to mount the starter raised for the helper would
	// otherwise pass to the program.
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clearing the ambient capabilities: %w", err)
	}
	return nil
}

// keepReadOnly puts a read-only copy of the mounts at p over p, where it
// resolves, and then puts each of caches that lies inside p back on top
// of it as it was (writable), each made when missing. A kernel without
// detached mounts (open_tree, Linux 5.2) or mount_setattr (5.12), or a
// profile that refuses them, leaves p as it is, and the process's log
// says so: the rest of the cover holds.
func keepReadOnly(p string, caches []string) error {
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
		return nil
	}
	if err != nil {
		return err
	}
	// The caches inside p, taken (writable) before p is made read-only.
	var inner []homePlace
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for _, c := range caches {
		if !inHome(real, c) && !inHome(p, c) {
			continue
		}
		_ = os.MkdirAll(c, 0o700)
		rc, err := filepath.EvalSymlinks(c)
		if err != nil || rc == real || !inHome(real, rc) {
			continue
		}
		inner = append(inner, homePlace{path: rc, dir: true, write: true})
	}
	slices.SortFunc(inner, func(a, b homePlace) int { return len(a.path) - len(b.path) })
	for _, c := range inner {
		fd, err := unix.OpenTree(unix.AT_FDCWD, c.path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if unsupported(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("taking %s: %w", c.path, err)
		}
		fds = append(fds, fd)
	}
	fd, err := unix.OpenTree(unix.AT_FDCWD, real, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if unsupported(err) {
		fmt.Fprintf(os.Stderr, "anvil: %s stays writable: %v\n", p, err)
		return nil
	}
	if err != nil {
		return err
	}
	fds = append(fds, fd)
	if err := readOnly(fd); unsupported(err) {
		fmt.Fprintf(os.Stderr, "anvil: %s stays writable: %v\n", p, err)
		return nil
	} else if err != nil {
		return err
	}
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, real, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return err
	}
	for i, c := range inner {
		if err := unix.MoveMount(fds[i], "", unix.AT_FDCWD, c.path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("putting back %s: %w", c.path, err)
		}
	}
	return nil
}

// unsupported reports whether err says the kernel or its profile gives
// no such mount call (ENOSYS, EPERM).
func unsupported(err error) bool {
	return errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM)
}

// hide covers p with an empty read-only node of its kind, where it
// resolves (a mount lands on what a link names, so the place covered is
// the link's target); what does not exist, or what the program could not
// reach anyway, has nothing to hide.
func hide(p string) error {
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
		return nil
	}
	if err != nil {
		return err
	}
	info, err := os.Stat(real)
	if err != nil {
		return err
	}
	if info.IsDir() {
		return unix.Mount("tmpfs", real, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=000")
	}
	return unix.Mount("/dev/null", real, "", unix.MS_BIND, "")
}

// containedStart turns spec into the helper's start: the program, its
// arguments and environment ride in the helper's one variable.
func containedStart(spec Spec) (path string, args, env []string, err error) {
	mounts, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return "", nil, nil, err
	}
	// Found as an uncontained start finds it (os/exec, Anvil's PATH):
	// the helper execs it by its path.
	program, err := exec.LookPath(spec.Path)
	if err != nil {
		return "", nil, nil, err
	}
	if program, err = filepath.Abs(program); err != nil {
		return "", nil, nil, err
	}
	// The program itself is put back with its installation (a bin
	// directory's parent) wherever it lies: the helper executes it after
	// the cover.
	shown := append(slices.Clone(spec.Contain.Shown), installationOf(program, spec.Contain.Home))
	data, err := json.Marshal(containSpec{Path: program, Argv: append([]string{spec.Path}, spec.Args...), Env: spec.Env, Hidden: spec.Contain.Hidden,
		Home: spec.Contain.Home, Shown: shown, Caches: spec.Contain.Caches, ReadOnly: spec.Contain.ReadOnly, ParentMounts: mounts, Nice: backgroundNice(spec)})
	if err != nil {
		return "", nil, nil, err
	}
	return spec.Contain.Helper, nil, []string{containEnv + "=" + string(data)}, nil
}

// installationOf is what to show of a program: the parent of its bin
// directory (whose lib the program may need), else its directory; never
// the home whole or its .local, where the program alone is shown.
func installationOf(program, home string) string {
	dir := filepath.Dir(program)
	if filepath.Base(dir) == "bin" && filepath.Dir(dir) != home && filepath.Dir(dir) != filepath.Join(home, ".local") {
		return filepath.Dir(dir)
	}
	if dir == home {
		return program
	}
	return dir
}
