// Package tsserver is a client of tsserver, the server TypeScript up to
// version 6 ships (lib/tsserver.js), speaking its own protocol rather than
// LSP.
//
// Anvil uses it to check projects that pin TypeScript 6 or older, because
// the protocol gives what typescript-language-server cannot: a synchronous
// answer per file. After an updateOpen, semanticDiagnosticsSync and
// syntacticDiagnosticsSync for a file are computed against every change
// sent before them, for open and closed files alike, with no debounce.
// The answer to a request sent after the change is the evidence that the
// compiler saw it.
//
// Requests are lines of JSON on the server's stdin; responses and events
// come back on stdout framed by Content-Length headers. The server handles
// messages one at a time, in order, so requests may be pipelined.
//
// Started with --canUseWatchEvents (TypeScript 5.4 and later), tsserver
// watches no file itself: it asks the client to, and the client reports
// changes with watchChange. Disk changes then reach it exactly when Anvil
// sends them, never in the middle of a check.
package tsserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/proc"
)

// ErrExited is returned by requests made to a server whose process has ended.
var ErrExited = errors.New("tsserver exited")

// Config says how to run tsserver.
type Config struct {
	// Name identifies the server in messages.
	Name string
	// Node is the node binary; TSServer the tsserver.js it runs.
	Node     string
	TSServer string
	// Dir is the workspace root: the working directory, and where tsserver
	// stops looking for tsconfig.json files.
	Dir string
	// Env is the whole environment (see proc.Spec.Env).
	Env []string
	// Contain keeps tsserver from what it must not see (see
	// proc.Spec.Contain).
	Contain *proc.Containment
	// RequestTimeout bounds requests whose context has no deadline; zero
	// means 30 s.
	RequestTimeout time.Duration
	// Log, if set, receives the server's stderr.
	Log io.Writer
}

// Client is a running tsserver.
type Client struct {
	cfg     Config
	proc    *proc.Process
	version string // TypeScript's version, from its package.json
	stderr  *proc.Tail

	writeMu sync.Mutex // one message on stdin at a time

	mu       sync.Mutex
	seq      int
	pending  map[int]chan response
	watchers map[int]Watcher // watch requests tsserver made, by id
	events   map[string]int  // events received, by name
}

// Watcher is a file or directory tsserver asked the client to watch.
type Watcher struct {
	Path      string
	Directory bool
	Recursive bool
	// IgnoreUpdate: only creations and deletions matter (a directory
	// watched for its file list).
	IgnoreUpdate bool
}

type response struct {
	Success bool            `json:"success"`
	Message string          `json:"message"`
	Body    json.RawMessage `json:"body"`
	err     error
}

// Start runs tsserver and waits until it answers a first request.
func Start(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	version := packageVersion(filepath.Join(filepath.Dir(cfg.TSServer), "..", "package.json"))
	args := []string{cfg.TSServer, "--disableAutomaticTypingAcquisition", "--locale", "en",
		"--suppressDiagnosticEvents", "--noGetErrOnBackgroundUpdate"}
	if WatchEventsSupported(version) {
		args = append(args, "--canUseWatchEvents")
	}
	c := &Client{cfg: cfg, version: version, stderr: proc.NewTail(16 << 10),
		pending: map[int]chan response{}, watchers: map[int]Watcher{}, events: map[string]int{}}
	var errOut io.Writer = c.stderr
	if cfg.Log != nil {
		errOut = io.MultiWriter(c.stderr, cfg.Log)
	}
	p, err := proc.Start(proc.Spec{Path: cfg.Node, Args: args, Dir: cfg.Dir, Env: cfg.Env, Stderr: errOut, Contain: cfg.Contain})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Name, err)
	}
	c.proc = p
	go c.read(p.Stdout())
	// Preferences that make answers complete and stable: no truncation of
	// long types in messages.
	if err := c.Request(ctx, "configure", map[string]any{
		"preferences": map[string]any{"disableLineTextInReferences": false},
	}, nil); err != nil {
		c.Kill()
		return nil, fmt.Errorf("%s: %w", cfg.Name, err)
	}
	return c, nil
}

// WatchEventsSupported reports whether a tsserver of TypeScript version v
// can leave file watching to its client (--canUseWatchEvents, 5.4+).
func WatchEventsSupported(v string) bool {
	major, minor := versionParts(v)
	return major > 5 || major == 5 && minor >= 4
}

// WatchEvents reports whether this server leaves file watching to Anvil.
func (c *Client) WatchEvents() bool { return WatchEventsSupported(c.version) }

func versionParts(v string) (int, int) {
	parts := strings.SplitN(v, ".", 3)
	major, _ := strconv.Atoi(parts[0])
	minor := 0
	if len(parts) > 1 {
		minor, _ = strconv.Atoi(parts[1])
	}
	return major, minor
}

// Version is the TypeScript version of the running tsserver.
func (c *Client) Version() string { return c.version }

// Name returns the configured name.
func (c *Client) Name() string { return c.cfg.Name }

// Info names the server and its TypeScript.
func (c *Client) Info() lsp.ServerInfo {
	return lsp.ServerInfo{Name: "tsserver", Version: "typescript " + c.version}
}

// PID returns the node process's id.
func (c *Client) PID() int { return c.proc.PID() }

// Exited returns a channel closed when the process has ended.
func (c *Client) Exited() <-chan struct{} { return c.proc.Exited() }

// Alive reports whether the process is running.
func (c *Client) Alive() bool { return c.proc.Alive() }

// ExitError describes how the process ended, with the tail of its stderr;
// nil while it runs.
func (c *Client) ExitError() error {
	if err := c.proc.ExitError(c.cfg.Name, c.stderr); err != nil {
		return fmt.Errorf("%w: %w", ErrExited, err)
	}
	return nil
}

// Shutdown asks tsserver to exit and kills it if it has not within 2 s (or
// when ctx ends). It returns once the process is reaped.
func (c *Client) Shutdown(ctx context.Context) error {
	if !c.Alive() {
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, time.Second)
	_ = c.Notify(sctx, "exit", nil)
	cancel()
	c.proc.Stop(ctx, 2*time.Second)
	return nil
}

// Kill ends the process at once and returns once it is reaped.
func (c *Client) Kill() { c.proc.Kill() }

// Events returns how many events named name have arrived.
func (c *Client) Events(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.events[name]
}

// Watchers returns the watches tsserver has asked for and not closed.
func (c *Client) Watchers() map[int]Watcher {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[int]Watcher, len(c.watchers))
	for id, w := range c.watchers {
		out[id] = w
	}
	return out
}

// Request sends command with args and decodes the answer's body into
// result (if not nil). An answer with success false is an error with the
// server's message. ctx bounds the write and the wait; a request whose
// context has no deadline gets the configured timeout.
func (c *Client) Request(ctx context.Context, command string, args, result any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.RequestTimeout)
		defer cancel()
	}
	ch := make(chan response, 1)
	c.mu.Lock()
	c.seq++
	seq := c.seq
	c.pending[seq] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, seq)
		c.mu.Unlock()
	}()
	if err := c.write(ctx, seq, command, args); err != nil {
		return err
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return r.err
		}
		if !r.Success {
			return &RequestError{Command: command, Message: firstLine(r.Message)}
		}
		if result != nil && len(r.Body) > 0 {
			if err := json.Unmarshal(r.Body, result); err != nil {
				return fmt.Errorf("%s %s: %w", c.cfg.Name, command, err)
			}
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s %s: %w", c.cfg.Name, command, ctx.Err())
	case <-c.proc.Exited():
		return c.ExitError()
	}
}

// Notify sends a command tsserver does not answer (watchChange, exit,
// reloadProjects). The server handles messages in order, so the answer to
// any later request means this one was handled.
func (c *Client) Notify(ctx context.Context, command string, args any) error {
	c.mu.Lock()
	c.seq++
	seq := c.seq
	c.mu.Unlock()
	return c.write(ctx, seq, command, args)
}

// RequestError is a request tsserver answered with success false.
type RequestError struct {
	Command string
	Message string
}

func (e *RequestError) Error() string { return fmt.Sprintf("tsserver %s: %s", e.Command, e.Message) }

// write sends one request line. If ctx ends while the write is blocked
// (tsserver stopped reading), the write is abandoned and the process
// killed: a half-written line leaves its input unusable.
func (c *Client) write(ctx context.Context, seq int, command string, args any) error {
	if !c.Alive() {
		return c.ExitError()
	}
	msg := map[string]any{"seq": seq, "type": "request", "command": command}
	if args != nil {
		msg["arguments"] = args
	}
	line, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	err = c.proc.WriteBounded(ctx, func() error {
		_, err := c.proc.Stdin().Write(line)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s %s: %w", c.cfg.Name, command, ctx.Err())
		}
		if !c.Alive() {
			return c.ExitError()
		}
		return fmt.Errorf("%s %s: %w", c.cfg.Name, command, err)
	}
	return nil
}

// read dispatches what tsserver writes until its stdout ends, then fails
// every request still waiting.
func (c *Client) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		body, err := readFrame(br)
		if err != nil {
			// EOF once the process is gone; anything else means the
			// stream is no longer understood, and the process is useless.
			c.proc.Kill()
			break
		}
		var m struct {
			Type       string          `json:"type"`
			Event      string          `json:"event"`
			RequestSeq int             `json:"request_seq"`
			Body       json.RawMessage `json:"body"`
		}
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		switch m.Type {
		case "response":
			var resp response
			_ = json.Unmarshal(body, &resp)
			c.mu.Lock()
			ch := c.pending[m.RequestSeq]
			c.mu.Unlock()
			if ch != nil {
				ch <- resp
			}
		case "event":
			c.event(m.Event, m.Body)
		}
	}
	<-c.proc.Exited()
	err := c.ExitError()
	c.mu.Lock()
	defer c.mu.Unlock()
	for seq, ch := range c.pending {
		ch <- response{err: err}
		delete(c.pending, seq)
	}
}

func (c *Client) event(name string, body json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events[name]++
	var w struct {
		ID           int    `json:"id"`
		Path         string `json:"path"`
		Recursive    bool   `json:"recursive"`
		IgnoreUpdate bool   `json:"ignoreUpdate"`
	}
	switch name {
	case "createFileWatcher":
		if json.Unmarshal(body, &w) == nil {
			c.watchers[w.ID] = Watcher{Path: w.Path}
		}
	case "createDirectoryWatcher":
		if json.Unmarshal(body, &w) == nil {
			c.watchers[w.ID] = Watcher{Path: w.Path, Directory: true, Recursive: w.Recursive, IgnoreUpdate: w.IgnoreUpdate}
		}
	case "closeFileWatcher":
		if json.Unmarshal(body, &w) == nil {
			delete(c.watchers, w.ID)
		}
	}
}

// readFrame reads one Content-Length framed message.
func readFrame(br *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if n >= 0 {
				break
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			if n, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return nil, fmt.Errorf("bad Content-Length %q", v)
			}
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(br, body); err != nil {
		return nil, err
	}
	return body, nil
}

func packageVersion(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var pkg struct {
		Version string `json:"version"`
	}
	_ = json.Unmarshal(data, &pkg)
	return pkg.Version
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// OutputBytes returns how much tsserver has written so far: a server
// whose count grows is working, whatever it says.
func (c *Client) OutputBytes() uint64 { return c.proc.OutputBytes() }

// Contained reports whether tsserver runs with its containment's places
// covered (see [proc.Process.Contained]).
func (c *Client) Contained() bool { return c.proc.Contained() }
