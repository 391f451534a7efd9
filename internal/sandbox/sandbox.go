// Package sandbox runs a command in a shadow tree: a copy-on-write view of
// the workspace, at the workspace's own absolute path, holding a change
// set, where everything the command writes lands in a scratch directory
// outside the user's tree and is thrown away afterwards. Build caches,
// tsconfig paths, virtual-environment shebangs and absolute paths in build
// outputs keep working, because the path is the same; the user's files are
// never written.
//
// On Linux the tree is an overlayfs mounted over the workspace path in a
// user, mount, PID (and, unless the network is allowed, network)
// namespace of the command's own, as an unprivileged user: the anvil
// binary re-executes itself as the helper that mounts, applies the change
// set and executes the command ([Main]). Go never unshares from its
// multi-threaded parent; the namespaces are created by clone for the
// helper alone. Where the kernel refuses (user namespaces disabled, no
// overlayfs), [Run] returns an [*UnavailableError] saying why: the run
// stage is then unavailable, never silently run in the user's tree.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ReportDir is where a command run with [Spec.Reports] finds a directory
// whose files [Run] returns.
const ReportDir = "/tmp/anvil-report"

// systemDirs are the top-level directories of the host the command sees.
var systemDirs = map[string]bool{
	"usr": true, "bin": true, "sbin": true, "lib": true, "lib32": true, "lib64": true, "libx32": true,
	"etc": true, "opt": true, "nix": true, "gnu": true, "snap": true,
}

// Limits bound what a run may take, each the user's to raise ([run]
// memory, tmp_size, processes, file_size). A negative field is no bound.
type Limits struct {
	// Memory bounds each process's data, bytes (RLIMIT_DATA: its heap
	// and private writable mappings; what it has reserved without
	// access does not count).
	Memory int64
	// Tmp bounds the private /tmp and /dev/shm, bytes each.
	Tmp int64
	// Processes bounds the processes and threads the user runs in the
	// command's namespace (RLIMIT_NPROC; not enforced for root).
	Processes int64
	// FileSize bounds each file the command writes, bytes
	// (RLIMIT_FSIZE).
	FileSize int64
}

// DefaultLimits are the bounds of a run whose Spec sets none: room for
// a large test suite, not for one test taking the machine.
var DefaultLimits = Limits{Memory: 4 << 30, Tmp: 1 << 30, Processes: 4096, FileSize: 2 << 30}

// withDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	for _, f := range []struct {
		v *int64
		d int64
	}{{&l.Memory, DefaultLimits.Memory}, {&l.Tmp, DefaultLimits.Tmp}, {&l.Processes, DefaultLimits.Processes}, {&l.FileSize, DefaultLimits.FileSize}} {
		if *f.v == 0 {
			*f.v = f.d
		}
	}
	return l
}

// The bounds, named as [run] names them.
const (
	BoundMemory    = "memory"
	BoundTmp       = "tmp_size"
	BoundProcesses = "processes"
	BoundFileSize  = "file_size"
)

// boundSigns are what a command's output says when it reached a bound:
// the errors and signals each bound makes a process see. A match is a
// sign, not a proof (a disk that is full says what a full /tmp says).
var boundSigns = []struct {
	bound string
	signs []string
}{
	{BoundMemory, []string{"out of memory", "cannot allocate memory", "memoryerror", "failed to allocate", "memory allocation of", "bad_alloc"}},
	{BoundFileSize, []string{"file size limit exceeded", "file too large"}},
	{BoundTmp, []string{"no space left on device"}},
	{BoundProcesses, []string{"resource temporarily unavailable", "fork: retry", "cannot fork", "can't fork"}},
}

// boundsHit names the bounds the output shows were reached.
func boundsHit(out []byte) []string {
	low := strings.ToLower(string(out))
	var hit []string
	for _, b := range boundSigns {
		for _, sign := range b.signs {
			if strings.Contains(low, sign) {
				hit = append(hit, b.bound)
				break
			}
		}
	}
	return hit
}

// Change is one file of the change set as the shadow tree must hold it.
type Change struct {
	Path    string // relative to the root, slash-separated
	Content []byte
	Delete  bool
}

// Spec is a command to run in a shadow tree.
type Spec struct {
	// Root is the workspace: absolute, clean, a directory.
	Root    string
	Changes []Change
	// Argv is the command; Argv[0] is looked up in Env's PATH.
	Argv []string
	// Dir is where it runs, relative to Root ("" for Root).
	Dir string
	// Seal is what the command inherits of the host (the environment,
	// the places hidden, the toolchains shown); Run refuses a spec
	// without one. Only the execution policy makes it
	// (internal/execpolicy), from the user's configuration and
	// environment, never from the workspace's files.
	Seal *Seal
	// Env is set over the seal's environment (a runner's own variables:
	// CARGO_TARGET_DIR, PYTHONDONTWRITEBYTECODE).
	Env []string
	// Network lets the command reach the network; otherwise it has only
	// a loopback interface of its own.
	Network bool
	// OutputLimit bounds the output kept (its tail); 0 means 1 MiB.
	OutputLimit int
	// Hidden are files and directories (absolute) the command must not
	// see, besides those every run hides (the user's runtime
	// directories, where the daemon's socket and the session bus live):
	// each is empty inside. One holding the workspace is not hidden.
	Hidden []string
	// Visible are files and directories (absolute) the command sees at
	// their own place, read-only, wherever they are: the toolchains and
	// their caches, which may lie in a home, in /tmp or in /var, none of
	// which the command sees otherwise. A link is shown as what it names.
	// One below a Hidden path stays hidden.
	Visible []string
	// Writable are directories (absolute, existing, outside the
	// workspace) the command may write besides the shadow tree and its
	// private /tmp: the caches a runner needs, which must not hold the
	// user's configuration or state.
	Writable []string
	// Background runs the command at a low CPU priority (nice 10): work
	// done ahead of need, which must not slow what the user waits for.
	Background bool
	// Reports gives the command an empty directory at [ReportDir] whose
	// regular files come back in [Result.Reports]: where a runner writes
	// its report, apart from the output a test can print into.
	Reports bool
	// Limits bound what the command may take; a zero field takes the
	// default of [DefaultLimits].
	Limits Limits
	// Mechanism forces how the tree is made: "" tries overlayfs, then
	// falls back to a copy; MechanismOverlay or MechanismCopy take only
	// that one (tests force each).
	Mechanism string
}

// How a shadow tree is made.
const (
	// MechanismOverlay: an overlayfs over the workspace path; constant
	// time whatever the tree's size.
	MechanismOverlay = "overlayfs"
	// MechanismCopy: the tree copied (cloned where the file system can)
	// into the scratch directory, its heavy dependency directories bound
	// read-only, and the copy bound over the workspace path; for kernels
	// without unprivileged overlayfs. Linear in the tree's size.
	MechanismCopy = "copy"
)

// Result is what the command did.
type Result struct {
	// ExitCode is the command's exit status; -1 if it was killed.
	ExitCode int
	// Output is its standard output and error, interleaved, cut to the
	// last Spec.OutputLimit bytes.
	Output    []byte
	Truncated bool
	// Killed is set when ctx ended before the command did.
	Killed  bool
	Elapsed time.Duration
	// Setup is how long making the shadow tree took (namespaces, mount,
	// the change set), measured by the helper.
	Setup time.Duration
	// Mechanism is how the tree was made.
	Mechanism string
	// Limits are the bounds the command ran under, and Hit those its
	// output shows it reached ([BoundMemory], ...).
	Limits Limits
	Hit    []string
	// Reports are the files the command left in [ReportDir], by name
	// (with [Spec.Reports]); each at most [reportLimit] bytes.
	Reports map[string][]byte
}

// UnavailableError says why no shadow tree can be made here.
type UnavailableError struct {
	Reason string
	// Fix is what the user can do about it, when something can be done.
	Fix string
}

func (e *UnavailableError) Error() string {
	s := "no shadow tree: " + e.Reason
	if e.Fix != "" {
		s += "; fix: " + e.Fix
	}
	return s
}

// IsUnavailable reports whether err is an [*UnavailableError].
func IsUnavailable(err error) bool {
	var u *UnavailableError
	return errors.As(err, &u)
}

// validate checks a spec before anything is created.
func (s Spec) validate() error {
	if len(s.Argv) == 0 {
		return errors.New("sandbox: no command")
	}
	if s.Seal == nil {
		return errors.New("sandbox: no seal: every command in a shadow tree runs as the execution policy says")
	}
	for _, c := range s.Changes {
		// A change is applied before the root is pivoted, with the host
		// still writable: it must name a place inside the tree (no "..",
		// no absolute path), and apply follows no link out of it.
		if !filepath.IsLocal(filepath.FromSlash(c.Path)) {
			return fmt.Errorf("sandbox: bad change path %q: not a path inside the workspace", c.Path)
		}
	}
	for _, w := range s.Writable {
		if !filepath.IsAbs(w) || filepath.Clean(w) != w {
			return fmt.Errorf("sandbox: writable directory %q is not an absolute, clean path", w)
		}
		// Bound writable over or under the shadow tree, it would let the
		// command write the user's files.
		if inside(w, s.Root) || inside(s.Root, w) {
			return fmt.Errorf("sandbox: writable directory %s overlaps the workspace", w)
		}
		for _, h := range s.Hidden {
			if inside(w, h) {
				return fmt.Errorf("sandbox: writable directory %s is in hidden %s", w, h)
			}
		}
	}
	for _, v := range s.Visible {
		if !ShowsAsVisible(v) {
			return fmt.Errorf("sandbox: visible path %q is not an absolute, clean path below a top-level directory", v)
		}
	}
	for _, h := range s.Hidden {
		if !filepath.IsAbs(h) {
			return fmt.Errorf("sandbox: hidden path %q is not absolute", h)
		}
	}
	return nil
}

// LookPath finds name as a command run with env would: on env's PATH (the
// last one, as for os/exec), or this process's when env has none. A name
// with a slash is taken as it is.
func LookPath(name string, env []string) (string, error) {
	if strings.ContainsRune(name, '/') {
		if _, err := os.Stat(name); err != nil {
			return "", err
		}
		return name, nil
	}
	path, found := "", false
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path, found = v, true
		}
	}
	if !found {
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}
