// Package proc runs the long-lived helper processes Anvil owns (language
// servers, tsserver) so that none of them outlives its owner or blocks it.
//
// A [Process] gets pipes Anvil creates itself for stdin and stdout, so that
// waiting for the process never races with reading its output (os/exec
// forbids calling Wait while reads from a StdoutPipe are running), and so
// that a write to a process that stopped reading can be abandoned through
// a deadline instead of blocking forever.
//
// Where the kernel allows it (Linux, as root or with unprivileged user
// namespaces), each process is the first process of a PID namespace of its
// own: when it dies the kernel kills every process it started, including
// detached daemons that left its process group (gopls -remote=auto, a
// setsid child). Elsewhere it leads a process group of its own. Either way
// the kernel sends it SIGKILL when Anvil dies ([syscall.SysProcAttr]
// Pdeathsig), so a crash or kill -9 of Anvil leaves no server behind.
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// WaitDelay bounds how long reaping a process that has exited waits for a
// descendant still holding its stderr: past it the pipe is closed and the
// wait returns. Servers write their stderr to Anvil's log through a copying
// goroutine, which such a descendant would otherwise keep alive.
const WaitDelay = 2 * time.Second

// drainDelay is how long the reader of a process that has exited may go on
// reading what is left in its stdout before the pipe is closed under it. In
// a PID namespace every writer is dead by then and the reader meets EOF at
// once; without one, a detached descendant can hold the pipe open forever.
const drainDelay = 200 * time.Millisecond

// Spec describes a process to start.
type Spec struct {
	Path string
	Args []string
	Dir  string
	// Env is the process's whole environment (nil: an empty one). It is
	// never Anvil's own: what a program may see is the execution policy's
	// decision (internal/execpolicy), made in the composition root.
	Env []string
	// Stderr receives the process's standard error; nil discards it.
	Stderr io.Writer
	// Input is what [Run] writes to the process's standard input before
	// closing it (nil: nothing).
	Input []byte
	// Contain, when set, starts the process through its helper with the
	// places it names hidden (see [Containment]).
	Contain *Containment
	// Background runs the process at a low CPU priority (nice 10): work
	// ahead of need, which a check someone waits for must not wait
	// behind on a machine of few cores.
	Background bool

	// groupOnly skips the PID namespace, for tests of the fallback.
	groupOnly bool
}

// backgroundNice is the priority spec's program runs at: 10 for
// Background, else 0 (Anvil's own).
func backgroundNice(spec Spec) int {
	if spec.Background {
		return 10
	}
	return 0
}

// Isolation says how a process is tied to its owner.
type Isolation string

const (
	// PIDNamespace: the process is PID 1 of a namespace of its own; its
	// death kills everything it started.
	PIDNamespace Isolation = "pid namespace"
	// ProcessGroup: the process leads a process group; killing it kills
	// the group, but not descendants that left it.
	ProcessGroup Isolation = "process group"
)

// Process is a running subprocess with its stdin and stdout.
type Process struct {
	cmd       *exec.Cmd
	stdin     *os.File // our end: written by the owner
	stdout    *os.File // our end: read by the owner
	isolation Isolation
	contained bool

	exited  chan struct{} // closed once the process is reaped
	waitErr error         // set before exited is closed

	closeOut sync.Once
	read     atomic.Uint64 // bytes of stdout read by the owner
}

// Start runs spec. The process is not tied to any context: it runs until
// it exits or its owner calls [Process.Kill].
func Start(spec Spec) (*Process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &Process{stdin: inW, stdout: outR, exited: make(chan struct{})}
	path, args, env := spec.Path, spec.Args, spec.Env
	if spec.Contain != nil {
		if path, args, env, err = containedStart(spec); err != nil {
			inR.Close()
			inW.Close()
			outR.Close()
			outW.Close()
			return nil, fmt.Errorf("start %s: %w", spec.Path, err)
		}
	}
	start := func(iso Isolation) error {
		cmd := exec.Command(path, args...)
		cmd.Dir = spec.Dir
		cmd.Env = append([]string{}, env...)
		cmd.Stdin, cmd.Stdout = inR, outW
		cmd.Stderr = spec.Stderr
		cmd.WaitDelay = WaitDelay
		cmd.SysProcAttr = sysProcAttr(iso, spec.Contain != nil)
		if err := cmd.Start(); err != nil {
			return err
		}
		if spec.Background && spec.Contain == nil {
			// Set from outside, on the main thread, as it starts: a
			// thread the program started before this keeps its own (a
			// contained program's helper sets it before it executes the
			// program: containSpec.Nice).
			_ = syscall.Setpriority(syscall.PRIO_PROCESS, cmd.Process.Pid, backgroundNice(spec))
		}
		p.cmd, p.isolation = cmd, iso
		// A mount namespace comes only with the PID namespace's start;
		// in a process group the helper runs the program uncovered.
		p.contained = spec.Contain != nil && iso == PIDNamespace && namespaces
		return nil
	}
	err = errNoNamespaces
	if namespaces && !spec.groupOnly {
		err = start(PIDNamespace)
	}
	if err != nil && namespaceRefused(err) {
		err = start(ProcessGroup)
	}
	// The child has its own copies of its ends now.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	go p.reap()
	return p, nil
}

// reap waits for the process, then gives the reader of its stdout a moment
// to finish before closing the pipe, so that the reader ends even if a
// detached descendant still holds the other end.
func (p *Process) reap() {
	err := p.cmd.Wait()
	p.waitErr = err
	close(p.exited)
	time.AfterFunc(drainDelay, p.closeStdout)
}

func (p *Process) closeStdout() { p.closeOut.Do(func() { p.stdout.Close() }) }

// PID returns the process id, as seen from Anvil.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Isolation says how the process is tied to Anvil.
func (p *Process) Isolation() Isolation { return p.isolation }

// Contained reports whether the process runs with its [Containment]'s
// places covered: false without one, and where the kernel gave no
// namespace (the helper then runs the program uncovered and says so).
func (p *Process) Contained() bool { return p.contained }

// Stdin is the write end of the process's standard input.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Stdout is the read end of the process's standard output. It is closed
// shortly after the process exits. What is read through it is counted
// (see [Process.OutputBytes]).
func (p *Process) Stdout() io.ReadCloser { return countingReader{p.stdout, &p.read} }

// OutputBytes returns how many bytes of its output the owner has read:
// a process whose count grows is talking, whatever it says (a long
// check answered file by file is not a hung server).
func (p *Process) OutputBytes() uint64 { return p.read.Load() }

type countingReader struct {
	f *os.File
	n *atomic.Uint64
}

func (r countingReader) Read(b []byte) (int, error) {
	n, err := r.f.Read(b)
	r.n.Add(uint64(n))
	return n, err
}

func (r countingReader) Close() error { return r.f.Close() }

// Exited returns a channel closed once the process has exited and been
// reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Alive reports whether the process has not exited yet.
func (p *Process) Alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// Err returns how the process ended (nil for exit status 0), or nil while
// it runs.
func (p *Process) Err() error {
	select {
	case <-p.exited:
		return p.waitErr
	default:
		return nil
	}
}

// Kill ends the process and everything it started at once, and returns
// once it is reaped: within [WaitDelay] plus [drainDelay] of the signal.
func (p *Process) Kill() {
	p.signal(syscall.SIGKILL)
	<-p.exited
}

// Wait blocks until the process has exited or ctx ends.
func (p *Process) Wait(ctx context.Context) error {
	select {
	case <-p.exited:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stop waits up to grace (bounded by ctx) for the process to exit by itself,
// as after a shutdown request, then kills it. It returns once the process
// is reaped.
func (p *Process) Stop(ctx context.Context, grace time.Duration) {
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
	case <-ctx.Done():
	}
	p.Kill()
}

// AbortWrites makes any write blocked on the process's stdin fail at once,
// and every later one too, then kills the process in the background. It is
// for a process that stopped reading: a half-written message leaves its
// input unusable, so there is nothing to keep it for.
func (p *Process) AbortWrites() {
	_ = p.stdin.SetWriteDeadline(time.Unix(1, 0))
	go p.Kill()
}

// WriteBounded runs write, which writes one message to the process's
// stdin, bounded by ctx: if the write is still blocked WriteGrace after
// ctx ends (the process stopped reading), writes are aborted and the
// process killed. Nothing is written once ctx has ended: a message cut
// short would leave the stream unframed, so a write happens whole or not
// at all, and a caller that merely went away costs the process nothing.
func (p *Process) WriteBounded(ctx context.Context, write func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	written := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(WriteGrace)
		defer t.Stop()
		select {
		case <-written:
		case <-t.C:
			p.AbortWrites()
		}
	})
	err := write()
	close(written)
	stop()
	return err
}

// WriteGrace is how long a write may stay blocked after its context ends.
// A write to a process that reads takes microseconds; one still blocked
// this long after is to a process that stopped reading.
const WriteGrace = 250 * time.Millisecond

func (p *Process) signal(sig syscall.Signal) {
	if !p.Alive() {
		return
	}
	// The negative pid is the process group: helpers the process spawned
	// (tsc's native binary, tsserver's children) go with it. In a PID
	// namespace the kernel takes care of the rest once the leader dies.
	if err := syscall.Kill(-p.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		_ = p.cmd.Process.Signal(sig)
	}
}

// errNoNamespaces stands for a start in a PID namespace that was not tried.
var errNoNamespaces = errors.New("no PID namespaces on this system")

// Run runs a short command to completion, bounded by ctx: on
// cancellation the process and everything it started are killed, and Run
// returns within [WaitDelay]. It returns what the command wrote to stdout
// and stderr.
func Run(ctx context.Context, spec Spec) (stdout, stderr []byte, err error) {
	var out, errOut bytes.Buffer
	spec.Stderr = &errOut
	p, err := Start(spec)
	if err != nil {
		return nil, nil, err
	}
	go func() {
		// A process that exits without reading all of it ends the write.
		_, _ = p.stdin.Write(spec.Input)
		p.stdin.Close()
	}()
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(&out, p.stdout)
		close(copied)
	}()
	select {
	case <-p.exited:
	case <-ctx.Done():
		p.Kill()
	}
	// A process gone without reading all of its input (or a child that
	// left the group holding the pipe) must not keep the writer blocked.
	p.stdin.Close()
	<-copied
	if ctx.Err() != nil {
		return out.Bytes(), errOut.Bytes(), ctx.Err()
	}
	return out.Bytes(), errOut.Bytes(), p.waitErr
}
