package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/anvil-dev/anvil/internal/state"
)

// ConnectOptions say how to reach the daemon, and how to start it.
type ConnectOptions struct {
	// Socket: see [SocketPath].
	Socket string
	// Command starts a daemon listening on Socket; nil means this
	// executable with "serve --socket Socket".
	Command []string
	// Env is the daemon's environment; nil means this process's.
	Env []string
	// Log is the file the daemon's own log goes to; "" means Socket with
	// .log for .sock.
	Log string
	// StartTimeout bounds the wait for a daemon just started to listen;
	// zero means 10 s.
	StartTimeout time.Duration
	// Version is the version the daemon must have; "" means [Version].
	Version string
}

// Connect returns a client of a daemon of this version listening at
// o.Socket, starting one when none is, or replacing one of another version
// (like gopls -remote=auto). The daemon started is detached: it is its own
// session, outlives this process, and ends itself after its idle time or
// on 'anvil serve stop'.
func Connect(ctx context.Context, o ConnectOptions) (*Client, error) {
	if o.Version == "" {
		o.Version = Version()
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 10 * time.Second
	}
	c, err := Dial(ctx, o.Socket)
	if IsUntrusted(err) {
		return nil, err // someone else's socket: nothing to start there
	}
	if err == nil {
		if c.Version == o.Version {
			return c, nil
		}
		// Another build of Anvil: the two never talk; that one goes.
		sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		err := c.Stop(sctx)
		cancel()
		c.Close()
		if err != nil {
			return nil, fmt.Errorf("stopping the daemon of another version (pid %d): %w", c.PID, err)
		}
	}
	// What the daemon writes to its log (appended to by every start)
	// from here on is this start's.
	logFrom := int64(0)
	if st, err := os.Stat(logPath(o)); err == nil {
		logFrom = st.Size()
	}
	if err := start(o); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, o.StartTimeout)
	defer cancel()
	for delay := 5 * time.Millisecond; ; delay = min(delay*2, 200*time.Millisecond) {
		c, err := Dial(wctx, o.Socket)
		if err == nil && c.Version == o.Version {
			return c, nil
		}
		if c != nil {
			c.Close()
		}
		select {
		case <-wctx.Done():
			return nil, fmt.Errorf("the Anvil daemon did not start listening on %s within %s (its log: %s%s): %v", o.Socket, o.StartTimeout, logPath(o), logTail(logPath(o), logFrom), err)
		case <-time.After(delay):
		}
	}
}

func logPath(o ConnectOptions) string {
	if o.Log != "" {
		return o.Log
	}
	return strings.TrimSuffix(o.Socket, ".sock") + ".log"
}

// logTailSize bounds what of a daemon's log an error quotes.
const logTailSize = 2 << 10

// logTail is the end of what the daemon wrote to its log past from, as
// "; it wrote: …" on one line, or "" when it wrote nothing: why it did
// not listen, said where the user reads the error.
func logTail(path string, from int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() <= from {
		return ""
	}
	from = max(from, st.Size()-logTailSize)
	buf := make([]byte, st.Size()-from)
	n, _ := f.ReadAt(buf, from)
	var lines []string
	for _, l := range strings.Split(string(buf[:n]), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "; it wrote: " + strings.Join(lines, " | ")
}

// start launches a daemon in a session of its own, so neither the
// terminal's signals nor this process's exit reach it. If two clients
// start one at once, the second daemon finds the lock held and exits.
// StartedUnused is how long a daemon a client started waits for its first
// client before it exits.
const StartedUnused = time.Minute

func start(o ConnectOptions) error {
	argv := o.Command
	if len(argv) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("starting the daemon: %w", err)
		}
		argv = []string{exe, "serve", "--socket", o.Socket, "--unused", StartedUnused.String()}
	}
	if err := state.EnsureDir(filepath.Dir(o.Socket)); err != nil {
		return fmt.Errorf("starting the daemon: %w", err)
	}
	logf, err := os.OpenFile(logPath(o), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("starting the daemon: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = o.Env
	cmd.Dir = "/"
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the daemon: %w", err)
	}
	// Reaped here if it exits while this process lives (a second daemon
	// that lost the race); otherwise it is init's.
	go func() { _ = cmd.Wait() }()
	return nil
}

// ErrNotRunning is returned by [Find] when no daemon is listening.
var ErrNotRunning = errors.New("no Anvil daemon is running")

// Find returns a client of the daemon listening at socket, of any version,
// without starting one.
func Find(ctx context.Context, socket string) (*Client, error) {
	c, err := Dial(ctx, socket)
	if err != nil {
		return nil, ErrNotRunning
	}
	return c, nil
}
