// Package tsdecl asks TypeScript for a file's interface: its declaration
// emit, computed from the file's text alone by ts.transpileDeclaration
// (TypeScript 5.5 and later). TypeScript's own builder decides which
// importers to re-check by comparing a hash of this emit before and after
// a change (builderState.ts, updateShapeSignature), so two equal emits
// are, by the compiler's rule, one interface. The emit is complete only
// when TypeScript reports no diagnostic: a TS9xxx diagnostic says an
// export's type would need inference (isolatedDeclarations), and then the
// emit says nothing and the caller keeps its own, more cautious answer.
//
// The emit leaves out one thing an importer's check reads: a private
// member's type (`private x;`), which `new A()["x"]` is checked against
// (TypeScript's builder misses such a change). So a file with private
// members is emitted twice, the second time with each `private` made
// `public`; both emits are its interface (Result.Open).
//
// The same process answers a second question (Emitter.Imports, in
// imports.go): who reads which file, as TypeScript's program of each
// project resolves its imports, references and type directives. That
// record only adds importers to Anvil's own reading (internal/reach).
//
// One Node process per Emitter answers request after request, of either
// kind; it is owned through package proc (its death kills it, a wait for
// it is bounded), started on first use, and runs Anvil's TypeScript only:
// no module, plugin or script of the repository.
package tsdecl

import (
	"bufio"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/anvil-dev/anvil/internal/proc"
)

//go:embed emit.js
var script string

// answerBound bounds one answer, the process's start included (a Node
// start costs about 0.4 s on the project machine, an answer milliseconds).
const answerBound = 15 * time.Second

// cacheSize bounds the emits kept by content.
const cacheSize = 4096

// Result is a file's declaration emit.
type Result struct {
	// DTS is the emitted declaration file.
	DTS string
	// Open is the emit with the private members made public, which
	// carries their types; DTS when the file has none.
	Open string
	// Complete: TypeScript reported no diagnostic for either emit, so DTS
	// and Open are the file's whole interface.
	Complete bool
	// Diagnostics is how many it reported (each an export whose type
	// needs inference, or text that does not parse).
	Diagnostics int
}

// Emitter answers declaration emits with one Node process.
type Emitter struct {
	node, typescript string
	contain          *proc.Containment
	background       bool

	// turn lets one request at a time use the process (and the cache); a
	// caller waits for it only as long as its context lets it.
	turn chan struct{}
	// life ends at Close: a request then in flight is cut (its process
	// stopped), and so is work a caller does for the emitter's life
	// rather than its own wait (Lifetime); a later request starts a new
	// process, under a new life.
	lifeMu  sync.Mutex
	life    context.Context
	endLife context.CancelFunc
	p       *proc.Process
	lines   chan []byte
	next    int
	cache   map[[32]byte]Result
	// givenUp is the last request whose caller stopped waiting, with the
	// end of its own bound: an answer still missing then is a hung
	// process, which no later request waits behind (0 when every request
	// sent was answered).
	givenUp   int
	overdueAt time.Time
	// lastOverdueAt is the bound of the last request given up on, which
	// decides once the ones before it are answered.
	lastOverdueAt time.Time
}

// FindOptions say where the emitter's programs are and how they run.
type FindOptions struct {
	// ToolsDir is Anvil's tools directory, whose ts-legacy holds the
	// TypeScript the emitter runs (never a workspace's).
	ToolsDir string
	// Path is the PATH node is looked for on (the user's environment,
	// from the composition root).
	Path string
	// Allow asks the execution policy whether the node found may run
	// (one inside an untrusted workspace may not); nil allows it.
	Allow func(node string) error
	// Contain keeps the process from the places no program may see (the
	// policy's); nil runs it uncontained.
	Contain *proc.Containment
	// Background runs the process at a low priority: the emitter that
	// makes the records of imports, ahead of need.
	Background bool
}

// Find returns an emitter over the TypeScript of Anvil's tools directory
// (toolsDir/ts-legacy, TypeScript 6), or nil when it or node is missing,
// or the policy refuses the node found.
func Find(opts FindOptions) *Emitter {
	node, err := lookPath("node", opts.Path)
	if err != nil {
		return nil
	}
	if opts.Allow != nil && opts.Allow(node) != nil {
		return nil
	}
	ts := filepath.Join(opts.ToolsDir, "ts-legacy", "node_modules", "typescript")
	if _, err := os.Stat(filepath.Join(ts, "lib", "typescript.js")); err != nil {
		return nil
	}
	e := New(node, ts)
	e.contain, e.background = opts.Contain, opts.Background
	return e
}

// lookPath finds the executable name on the directories of path.
func lookPath(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative entry names the working directory's programs
		}
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH", name)
}

// New returns an emitter that runs node with the TypeScript package at
// typescript.
func New(node, typescript string) *Emitter {
	e := &Emitter{node: node, typescript: typescript, cache: map[[32]byte]Result{}, turn: make(chan struct{}, 1)}
	e.life, e.endLife = context.WithCancel(context.Background())
	return e
}

// Lifetime returns a context that ends at the emitter's next Close: for
// work that outlives one caller's wait (a record of imports finished for
// the next checks), which must still end with the emitter.
func (e *Emitter) Lifetime() context.Context {
	e.lifeMu.Lock()
	defer e.lifeMu.Unlock()
	return e.life
}

// acquire waits for the process's turn within ctx; release gives it back.
// A caller whose context has ended gets no turn, even a free one.
func (e *Emitter) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("the declaration emitter was not waited for: %w", err)
	}
	select {
	case e.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the declaration emitter was busy: %w", ctx.Err())
	}
}

func (e *Emitter) release() { <-e.turn }

// Emit returns the declaration emit of src, the content of fileName (its
// extension decides TypeScript's reading: .ts, .tsx, .mts, .cts).
func (e *Emitter) Emit(ctx context.Context, fileName string, src []byte) (Result, error) {
	key := sha256.Sum256(append([]byte(fileName+"\x00"), src...))
	if err := e.acquire(ctx); err != nil {
		return Result{}, err
	}
	defer e.release()
	if r, ok := e.cache[key]; ok {
		return r, nil
	}
	line, err := e.roundTrip(ctx, answerBound, map[string]any{"fileName": fileName, "text": string(src)})
	if err != nil {
		return Result{}, err
	}
	var a struct {
		DTS   string  `json:"dts"`
		Open  *string `json:"open"`
		Codes []int   `json:"codes"`
	}
	if err := json.Unmarshal(line, &a); err != nil {
		e.stop()
		return Result{}, fmt.Errorf("the declaration emitter's answer: %v", err)
	}
	r := Result{DTS: a.DTS, Open: a.DTS, Complete: len(a.Codes) == 0, Diagnostics: len(a.Codes)}
	if a.Open != nil {
		r.Open = *a.Open
	}
	if len(e.cache) >= cacheSize {
		clear(e.cache)
	}
	e.cache[key] = r
	return r, nil
}

// roundTrip sends req (an id is added) and returns its answer's line,
// within bound; called in the process's turn. An answer that reports an
// error is returned as one. A caller that gives up leaves the process
// answering (a later call passes its answer over, by its id): a record
// superseded by the next disk state, a check cut by a hook's wait, would
// otherwise throw away the programs the process keeps warm. Past its
// own bound the process is taken to be hung and stopped, whoever waits
// then: the request's own caller, or a later one queued behind it, which
// then asks a new process.
func (e *Emitter) roundTrip(caller context.Context, bound time.Duration, req map[string]any) ([]byte, error) {
	return e.roundTripIn(e.Lifetime(), caller, bound, req)
}

// roundTripIn is roundTrip within the emitter's life as it was when the
// request was made (a retry keeps it: a Close meanwhile must cut it).
func (e *Emitter) roundTripIn(life, caller context.Context, bound time.Duration, req map[string]any) ([]byte, error) {
	ctx, cancel := context.WithTimeout(caller, bound)
	defer cancel()
	// No request of ours is out: whatever was answered since is an answer
	// to one given up on.
	if e.readAnswered() || e.overdue() {
		e.stop() // exited, or hung on an answer no one waits for
	}
	if err := e.start(); err != nil {
		return nil, err
	}
	e.next++
	id := e.next
	req["id"] = id
	sent := time.Now()
	data, _ := json.Marshal(req)
	p := e.p
	if err := p.WriteBounded(ctx, func() error {
		_, err := p.Stdin().Write(append(data, '\n'))
		return err
	}); err != nil {
		e.stop()
		return nil, fmt.Errorf("the declaration emitter: %w", err)
	}
	for {
		// A request given up on before this one that passes its bound
		// unanswered has hung the process.
		var overdue <-chan time.Time
		if e.givenUp != 0 {
			t := time.NewTimer(time.Until(e.overdueAt))
			overdue = t.C
			defer t.Stop()
		}
		select {
		case <-life.Done():
			e.stop()
			return nil, errors.New("the declaration emitter was closed")
		case <-overdue:
			// What was read meanwhile comes first: the process may have
			// answered, this request too.
			if line, mine, err := e.takeRead(id); mine || err != nil {
				return line, err
			}
			if !e.overdue() {
				continue
			}
			e.stop()
			if caller.Err() == nil && life.Err() == nil {
				// Asked again of a new process, within what is left.
				return e.roundTripIn(life, caller, time.Until(sent.Add(bound)), req)
			}
			return nil, fmt.Errorf("the declaration emitter hung on an earlier request, past its %s: %w", bound, context.Cause(ctx))
		case <-ctx.Done():
			if caller.Err() != nil {
				if e.givenUp == 0 {
					e.overdueAt = sent.Add(bound)
				}
				e.givenUp, e.lastOverdueAt = id, sent.Add(bound)
				return nil, fmt.Errorf("the declaration emitter's answer was not waited for: %w", caller.Err())
			}
			// Hung, or its state unknown: the next call starts another.
			e.stop()
			return nil, fmt.Errorf("the declaration emitter did not answer within %s", bound)
		case line, ok := <-e.lines:
			if !ok {
				e.stop()
				return nil, errors.New("the declaration emitter exited")
			}
			if mine, err := e.take(line, id); mine || err != nil {
				return line, err
			}
		}
	}
}

// take reads one answer line: whether it is the answer to request id
// (with the error it reports), or else one to a request given up on,
// which it marks answered.
func (e *Emitter) take(line []byte, id int) (mine bool, err error) {
	var a struct {
		ID    int    `json:"id"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(line, &a); err != nil {
		e.stop()
		return false, fmt.Errorf("the declaration emitter's answer: %v", err)
	}
	switch {
	case e.givenUp == 0:
	case a.ID >= e.givenUp:
		// Answers come in order: every request given up on is answered.
		e.givenUp = 0
	default:
		// An earlier one is: the last one's bound decides now. Later, as
		// an emitter answers one kind of request, all with one bound.
		e.overdueAt = e.lastOverdueAt
	}
	if a.ID != id {
		return false, nil
	}
	if a.Error != "" {
		return true, fmt.Errorf("TypeScript: %s", a.Error)
	}
	return true, nil
}

// takeRead takes the answers already read, without waiting: the line of
// request id's answer if it is among them.
func (e *Emitter) takeRead(id int) (line []byte, mine bool, err error) {
	for {
		select {
		case l, ok := <-e.lines:
			if !ok {
				e.stop()
				return nil, false, errors.New("the declaration emitter exited")
			}
			if mine, err := e.take(l, id); mine || err != nil {
				return l, mine, err
			}
		default:
			return nil, false, nil
		}
	}
}

// readAnswered takes the answers already read, all to requests given up
// on (no request is out when it is called), and reports whether the
// process is gone.
func (e *Emitter) readAnswered() (gone bool) {
	if e.p == nil || e.givenUp == 0 {
		return false
	}
	_, _, err := e.takeRead(0) // ids start at 1: none is the caller's
	return err != nil
}

// overdue reports whether a request given up on is still unanswered past
// its bound.
func (e *Emitter) overdue() bool {
	return e.givenUp != 0 && !time.Now().Before(e.overdueAt)
}

// start starts the process if none runs.
func (e *Emitter) start() error {
	if e.p != nil && e.p.Alive() {
		return nil
	}
	e.stop()
	// No environment: it reads its request on stdin and Anvil's
	// TypeScript, nothing of the user's.
	p, err := proc.Start(proc.Spec{Path: e.node, Args: []string{"-e", script, "--", e.typescript}, Contain: e.contain, Background: e.background})
	if err != nil {
		return fmt.Errorf("starting the declaration emitter: %w", err)
	}
	lines := make(chan []byte, 1)
	go func() {
		defer close(lines)
		r := bufio.NewReaderSize(p.Stdout(), 1<<16)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	e.p, e.lines = p, lines
	return nil
}

// stop kills the process, if any; its reader ends with its output.
func (e *Emitter) stop() {
	if e.p == nil {
		return
	}
	e.p.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), proc.WaitDelay+time.Second)
	defer cancel()
	_ = e.p.Wait(ctx)
	for range e.lines {
	}
	e.p, e.lines = nil, nil
	e.givenUp = 0 // the new process owes no answer
}

// Close stops the process, cutting a request in flight and ending the
// emitter's life (see Lifetime); a later request starts another.
func (e *Emitter) Close() {
	e.lifeMu.Lock()
	end := e.endLife
	e.life, e.endLife = context.WithCancel(context.Background())
	e.lifeMu.Unlock()
	end() // the request in flight, if any, stops its process and returns
	_ = e.acquire(context.Background())
	defer e.release()
	e.stop()
}
