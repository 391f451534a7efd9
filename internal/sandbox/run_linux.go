package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/anvil-dev/anvil/internal/proc"
)

// The helper learns its job from a file in the scratch directory named by
// this variable; it is removed from the command's environment.
const specEnv = "ANVIL_SANDBOX_SPEC"

// setupFailed is the helper's exit status when it could not make the tree;
// its last output line then starts with setupMarker.
const (
	setupFailed = 125
	setupMarker = "anvil-sandbox: "
	setupDone   = "anvil-sandbox-ready "
)

// helperSpec is what the parent hands the helper.
type helperSpec struct {
	Root      string         `json:"root"`
	Upper     string         `json:"upper"`
	Work      string         `json:"work"`
	Changes   []helperChange `json:"changes"`
	Argv      []string       `json:"argv"`
	Dir       string         `json:"dir"`
	Env       []string       `json:"env"`
	Network   bool           `json:"network"`
	Mechanism string         `json:"mechanism,omitempty"`
	Tree      string         `json:"tree"` // the copy's place, for MechanismCopy
	Start     time.Time      `json:"start"`
	// NewRoot is the empty directory the sealed root is assembled in.
	NewRoot  string   `json:"new_root"`
	Hidden   []string `json:"hidden,omitempty"`
	Writable []string `json:"writable,omitempty"`
	// Visible are shown read-only at their own place, shortest first.
	Visible []string `json:"visible,omitempty"`
	Limits  Limits   `json:"limits"`
	// Reports is the scratch directory bound at ReportDir, if asked.
	Reports string `json:"reports,omitempty"`
}

type helperChange struct {
	Path   string `json:"path"`
	Source string `json:"source,omitempty"` // file in the scratch directory holding the content
	Delete bool   `json:"delete,omitempty"`
}

// killGrace bounds the wait for a killed command's output to end: a
// process in the namespace dies with the helper (PID 1 there), so the
// output ends at once, and WaitDelay is the bound if it does not.
const killGrace = 2 * time.Second

// Run makes a shadow tree of spec.Root holding spec.Changes, runs the
// command in it until it exits or ctx ends (then it and everything it
// started are killed, within 2 s), and throws the tree away. An
// [*UnavailableError] says the kernel allows no shadow tree here.
func Run(ctx context.Context, spec Spec) (*Result, error) {
	if err := spec.validate(); err != nil {
		return nil, err
	}
	spec = spec.sealed()
	root, err := filepath.Abs(spec.Root)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real // the mount goes on the directory itself
	}
	// The scratch directory holds what the command writes: never in the
	// tree itself (checked before anything is made there).
	tmp := cmp.Or(spec.Seal.Host.TempDir, "/tmp")
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real
	}
	if inside(tmp, root) {
		return nil, &UnavailableError{Reason: fmt.Sprintf("the temporary directory %s is inside the workspace", tmp), Fix: "set TMPDIR to a directory outside it"}
	}
	sweepAll(tmp, spec.Seal.Host.PlacesFile)
	scratch, release, err := makeScratch(tmp)
	if err != nil {
		return nil, err
	}
	defer func() {
		removeAll(scratch)
		release()
	}()
	hs := helperSpec{Root: root, Upper: filepath.Join(scratch, "upper"), Work: filepath.Join(scratch, "work"), Tree: filepath.Join(scratch, "tree"),
		NewRoot: filepath.Join(scratch, "root"), Argv: spec.Argv, Dir: spec.Dir, Env: spec.Env, Network: spec.Network, Mechanism: spec.Mechanism,
		Hidden: withTargets(append(append(RuntimeDirs(spec.Seal.Host.RuntimeDir), spec.Hidden...), scratchPlaces(tmp, scratch, spec, root)...)), Writable: spec.Writable,
		Visible: visible(spec), Limits: spec.Limits.withDefaults()}
	dirs := []string{hs.Upper, hs.Work, hs.Tree, hs.NewRoot, filepath.Join(scratch, "changes")}
	if spec.Reports {
		hs.Reports = filepath.Join(scratch, "reports")
		dirs = append(dirs, hs.Reports)
	}
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	for i, c := range spec.Changes {
		hc := helperChange{Path: c.Path, Delete: c.Delete}
		if !c.Delete {
			hc.Source = filepath.Join(scratch, "changes", strconv.Itoa(i))
			if err := os.WriteFile(hc.Source, c.Content, 0o600); err != nil {
				return nil, err
			}
		}
		hs.Changes = append(hs.Changes, hc)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	limit := spec.OutputLimit
	if limit <= 0 {
		limit = 1 << 20
	}
	out := proc.NewTail(limit)
	start := time.Now()
	hs.Start = start
	data, err := json.Marshal(hs)
	if err != nil {
		return nil, err
	}
	specFile := filepath.Join(scratch, "spec.json")
	if err := os.WriteFile(specFile, data, 0o600); err != nil {
		return nil, err
	}

	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = []string{specEnv + "=" + specFile}
	cmd.Dir = "/"
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = namespaceAttr(spec.Network)
	cmd.Cancel = func() error { return cmd.Process.Kill() }
	cmd.WaitDelay = killGrace
	if err = cmd.Start(); err == nil {
		if spec.Background {
			// The helper's setup takes milliseconds; the command it
			// becomes, and everything it starts, inherit the priority.
			_ = syscall.Setpriority(syscall.PRIO_PROCESS, cmd.Process.Pid, 10)
		}
		err = cmd.Wait()
	}
	res := &Result{Elapsed: time.Since(start), Killed: ctx.Err() != nil, Limits: hs.Limits}
	res.Output, res.Setup, res.Mechanism = splitReady(out.Bytes())
	res.Hit = boundsHit(res.Output)
	res.Truncated = out.Truncated()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
		if exit.ExitCode() == setupFailed {
			if reason, ok := setupFailure(res.Output); ok {
				return nil, unavailable(reason)
			}
		}
	case res.Killed:
		res.ExitCode = -1
	default:
		return nil, unavailable(err.Error())
	}
	if res.Killed {
		res.ExitCode = -1
	}
	if hs.Reports != "" {
		res.Reports = readReports(hs.Reports)
	}
	return res, nil
}

func namespaceAttr(network bool) *syscall.SysProcAttr {
	flags := syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID
	if !network {
		flags |= syscall.CLONE_NEWNET
	}
	// The helper is root of its user namespace, mapped to the user: it
	// may mount there, and what it writes is the user's on the disk.
	return &syscall.SysProcAttr{
		Cloneflags:                 uintptr(flags),
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		GidMappingsEnableSetgroups: false,
		Pdeathsig:                  syscall.SIGKILL,
		Setpgid:                    true,
	}
}

// splitReady removes the helper's ready line ("<marker><setup time>
// <mechanism>") from the output and returns what it reports.
func splitReady(b []byte) ([]byte, time.Duration, string) {
	i := bytes.Index(b, []byte(setupDone))
	if i < 0 {
		return b, 0, ""
	}
	end := bytes.IndexByte(b[i:], '\n')
	if end < 0 {
		return b[:i], 0, ""
	}
	took, mech, _ := strings.Cut(string(b[i+len(setupDone):i+end]), " ")
	d, _ := time.ParseDuration(took)
	return append(append([]byte{}, b[:i]...), b[i+end+1:]...), d, mech
}

func setupFailure(out []byte) (string, bool) {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	last := lines[len(lines)-1]
	if r, ok := strings.CutPrefix(last, setupMarker); ok {
		return r, true
	}
	return "", false
}

// unavailable explains a refusal with what the user can do.
func unavailable(reason string) *UnavailableError {
	e := &UnavailableError{Reason: reason}
	switch {
	case strings.Contains(reason, "operation not permitted") || strings.Contains(reason, "permission denied"):
		e.Fix = "allow unprivileged user namespaces ('anvil doctor' says which setting refuses them)"
	case strings.Contains(reason, "no such device"):
		e.Fix = "the kernel has no overlayfs: load the overlay module"
	}
	return e
}

// removeAll removes the scratch directory, making writable first what a
// command left unwritable.
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}

// scratchPlaces is what the command must not see of the runs' scratch:
// the directory holding them, or, where that holds the workspace or a
// writable directory too, each other run's scratch directory there (its
// own is not in its root). The private /tmp shows none.
func scratchPlaces(tmp, own string, spec Spec, root string) []string {
	if tmp == "/tmp" {
		return nil
	}
	if !under(root, tmp) && !slices.ContainsFunc(spec.Writable, func(w string) bool { return under(w, tmp) }) {
		return []string{tmp}
	}
	others, _ := filepath.Glob(filepath.Join(tmp, scratchPrefix+"*"))
	return slices.DeleteFunc(others, func(p string) bool { return p == own })
}

// visible returns the paths spec shows, shortest first (a path below
// another is then shown through it): spec's own, what the programs on
// its PATH need (pathVisible), the installation of the program it runs
// and of a script that program is given (programVisible), the places the
// workspace's installed dependencies link to (dependencyLinks), and,
// with the network, the resolver's
// configuration where /etc/resolv.conf links out of /etc (into /run, as
// systemd-resolved's does).
func visible(spec Spec) []string {
	out := append(slices.Clone(spec.Visible), pathVisible(spec.Env)...)
	out = append(out, programVisible(spec.Argv, spec.Env)...)
	out = append(out, dependencyLinks(spec.Root, spec.Env)...)
	if spec.Network {
		if t, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && !under(t, "/etc") {
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(a) - len(b) })
	return slices.Compact(out)
}

// withTargets adds to hidden the place each hidden link leads to: a
// ~/.ssh that links into a dotfiles directory is hidden where its files
// are, not only by name.
func withTargets(hidden []string) []string {
	out := hidden
	for _, h := range hidden {
		if t, err := filepath.EvalSymlinks(h); err == nil && t != h {
			out = append(out, t)
		}
	}
	return out
}
