// Package app is Anvil's composition root: it builds the services one run
// needs (workspace, config, tools, language servers, the shadow workspace,
// the journal, the session) from the options the CLI parsed, and owns their
// shutdown. No other package constructs services; cmd/anvil only parses
// flags and calls here.
package app

import (
	"context"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/conversation"
	"github.com/anvil-dev/anvil/internal/diagformat"
	"github.com/anvil-dev/anvil/internal/gate"
	"github.com/anvil-dev/anvil/internal/journal"
	"github.com/anvil-dev/anvil/internal/reach"
	"github.com/anvil-dev/anvil/internal/search"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/session"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/state"
	"github.com/anvil-dev/anvil/internal/syntax"
	"github.com/anvil-dev/anvil/internal/testrun"
	"github.com/anvil-dev/anvil/internal/tools"
	"github.com/anvil-dev/anvil/internal/tsdecl"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// Options configure one run.
type Options struct {
	// Dir is the workspace root.
	Dir string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Environ is the environment the programs Anvil starts are given
	// (what the execution policy lets through of it); nil means
	// os.Environ, or, with Getenv set, what Getenv reads of the names the
	// policy lets through.
	Environ []string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// SessionBase overrides the config's session directory base.
	SessionBase string
	// Progress, if set, is told what the gate is doing while a check runs
	// ("starting tsserver…"), for a terminal's status line.
	Progress func(string)
	// OneRequest: the app serves one request and its process exits (a
	// one-shot 'anvil check' or hook without the daemon): no work is
	// started ahead of need, which the exit would cancel.
	OneRequest bool
	// WarmBatchFiles is the number of a language's files from which the
	// unchanged tree's batch answers (and TypeScript 7's proof) are made
	// ahead of need (shadow.Options.WarmBatchFiles); 0 is the
	// validator's default. The gate fuzzer's small projects set 1.
	WarmBatchFiles int
	// Helper contains the language servers (see execpolicy.Options);
	// "" means this executable, whose main calls sandbox.Main first.
	Helper string
}

// App holds the services of one run. Close releases them.
type App struct {
	Root      *workspace.Root
	Config    config.Config
	Tools     *tools.Set
	Servers   *servers.Manager
	Parser    *syntax.Parser
	Searcher  *search.Searcher
	Validator *shadow.Validator
	Journal   *journal.Journal
	Gate      *gate.Gate
	// declarations is TypeScript's declaration emitter the cut-off asks
	// (nil without node or Anvil's TypeScript 6); importRecords is a
	// second one, for the compiler's record of the projects' imports,
	// so that a check's comparison never waits behind a record.
	declarations, importRecords *tsdecl.Emitter
	// Notice says what the project's config file sets that only the
	// user's may ([config.Layers.IgnoredNotice]); "" when nothing.
	Notice string
	// Policy decides which programs run and what they see.
	Policy *execpolicy.Policy

	opts        Options
	sessionBase string
	logs        []*lazyFile

	mu      sync.Mutex
	session *session.Session
}

// Policy is the one execution policy for every program a workspace's run
// starts, as every front end builds it (a run, the daemon, doctor): from
// the user's configuration and the environment, never from the
// workspace's files. environ nil is what getenv reads of the names the
// policy lets through; helper contains the servers ("" leaves them
// uncontained).
func Policy(root string, layers config.Layers, getenv func(string) string, environ []string, helper string) *execpolicy.Policy {
	cfg := layers.Merged()
	if environ == nil {
		environ = execpolicy.EnvironOf(getenv, cfg.Run.Env)
	}
	return execpolicy.New(execpolicy.Options{
		Root: root, Trusted: layers.Trusted(), Environ: environ,
		EnvAllow: cfg.Run.Env, Hidden: testrun.Hidden(getenv), Helper: helper,
		ToolsDir: servers.DefaultToolsDir(getenv),
	})
}

// New builds the services for opts. Language servers start lazily, on
// first use.
func New(opts Options) (*App, error) {
	if opts.Getenv == nil && opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Helper == "" {
		if exe, err := os.Executable(); err == nil {
			opts.Helper = exe
		}
	}
	root, err := workspace.New(opts.Dir)
	if err != nil {
		return nil, err
	}
	layers, err := config.ReadLayers(config.DefaultPaths(root.Dir(), opts.Getenv))
	if err != nil {
		return nil, err
	}
	cfg := layers.Merged()
	a := &App{Root: root, Config: cfg, Notice: layers.IgnoredNotice(), opts: opts}
	a.sessionBase, _ = session.Base(opts.SessionBase, opts.Getenv, cfg.SessionDir)
	// Server stderr and the shadow log go to the session directory, created
	// when something first writes there.
	serverLog := a.sessionFile("servers.log")
	shadowLog := a.sessionFile(session.ShadowLogFile)

	toolsDir := servers.DefaultToolsDir(opts.Getenv)
	policy := Policy(root.Dir(), layers, opts.Getenv, opts.Environ, opts.Helper)
	a.Policy = policy
	registry := servers.NewRegistry(servers.RegistryOptions{
		Overrides:        cfg.ServerSpecs(),
		ToolsDir:         toolsDir,
		TypeScriptEngine: servers.Engine(cfg.TypeScriptEngine),
		Policy:           policy,
	})
	var onStart func(string)
	var progress func(shadow.Progress)
	if opts.Progress != nil {
		onStart = func(name string) { opts.Progress("starting " + name + "…") }
		progress = func(p shadow.Progress) { opts.Progress(p.String()) }
	}
	a.Servers = servers.NewManager(root.Dir(), registry, servers.ManagerOptions{Log: serverLog, OnStart: onStart})
	a.Parser = syntax.New(syntax.Options{})
	emitter := func(what string, background bool) *tsdecl.Emitter {
		return tsdecl.Find(tsdecl.FindOptions{ToolsDir: toolsDir, Path: opts.Getenv("PATH"), Contain: policy.Containment(), Background: background,
			Allow: func(node string) error {
				return policy.Program(execpolicy.Origin{What: "node (for " + what + ")", Path: node})
			}})
	}
	a.declarations = emitter("TypeScript's declaration emit", false)
	a.importRecords = emitter("TypeScript's record of imports", true)
	graph := reach.New(root, a.Parser).WithTypeScript(a.declarations).WithImportRecords(a.importRecords)
	a.Validator = shadow.New(root, a.Servers, graph, shadow.Options{
		Timeout:        cfg.Timeout(),
		LoadTimeout:    cfg.LoadTimeout.Duration,
		MaxDependants:  cfg.MaxDependants,
		Log:            shadow.NewLog(shadowLog),
		Clock:          opts.Now,
		Progress:       progress,
		Strategy:       shadow.Strategy(cfg.CheckStrategy),
		BatchStateDir:  filepath.Join(state.CacheDir(opts.Getenv), "batch"),
		Policy:         policy,
		WarmBatch:      true,
		WarmBatchFiles: opts.WarmBatchFiles,
		Check:          projectCheck(cfg.Check),
		CargoNetwork:   cfg.Run.Network,
		// Under the auto engine only (the registry decides): another
		// engine is the user's explicit choice of compiler.
		NativeWhereAgrees: true,
		StateDir:          state.Dir(opts.Getenv),
		GoBuild:           goBuildContext(opts.Getenv),
		OneRequest:        opts.OneRequest,
	})
	// pyright's record of imports is run by the Python server's batch
	// checker, which the validator owns.
	graph.WithPython(a.Validator)
	// So is the compilers' record of what C/C++ translation units read:
	// their compile commands, which the validator runs sealed.
	graph.WithC(a.Validator)
	a.Journal = journal.New(root, journal.Options{StateDir: state.Dir(opts.Getenv), Now: opts.Now})
	a.Gate = gate.New(a.Validator, a.Journal, testrun.New(root, testrun.Options{
		Build: cfg.Run.Build, Test: cfg.Run.Test, Report: cfg.Run.Report, Timeout: cfg.Run.Timeout.Duration,
		Network: cfg.Run.Network, NetworkAsked: layers.ProjectWantsNetwork(), Policy: policy,
		CacheDir: state.CacheDir(opts.Getenv), Importers: graph, Limits: testrun.LimitsOf(cfg.Run),
	}))
	a.Searcher = search.New(root, search.Options{})
	a.Tools = tools.NewSet(
		tools.Adapt(tools.NewReadFile(root)),
		tools.Adapt(tools.NewListFiles(root)),
		tools.Adapt(tools.NewTextSearch(root, a.Searcher)),
		tools.Adapt(tools.NewASTSearch(root, a.Parser)),
		tools.Adapt(tools.NewFindSymbol(root, a.Parser, a.Servers, a.Searcher)),
		tools.Adapt(tools.NewDiagnostics(root, a.Servers)),
		// Outside an Executor there is no change set: the rename is
		// computed and shown, not staged.
		tools.Adapt(tools.NewRenameSymbol(root, a.Parser, a.Servers, nil)),
	)
	return a, nil
}

// Conversations returns the workspace's sessions (the conversations a user
// continues with --continue and --resume), kept in the state directory.
func (a *App) Conversations() (*conversation.Store, error) {
	return conversation.Open(state.Dir(a.opts.Getenv), a.Root, a.opts.Now)
}

// Session returns the run's session directory, creating it on first use.
func (a *App) Session() (*session.Session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.session != nil {
		return a.session, nil
	}
	s, err := session.New(a.sessionBase, a.opts.Now())
	if err != nil {
		return nil, err
	}
	a.session = s
	return s, nil
}

// sessionFile returns a writer appending to name in the session
// directory; the session and the file are created on the first write.
func (a *App) sessionFile(name string) *lazyFile {
	f := &lazyFile{open: func() (io.Writer, error) {
		s, err := a.Session()
		if err != nil {
			return nil, err
		}
		return os.OpenFile(s.Path(name), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	}}
	a.logs = append(a.logs, f)
	return f
}

// StopServers shuts the language servers down, within 5 s: each is asked
// to exit and killed past the bound (see servers.Manager.Shutdown). Safe to
// call more than once.
func (a *App) StopServers() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.Servers.Shutdown(ctx)
	// A later check starts them again, as it does a server.
	for _, e := range []*tsdecl.Emitter{a.declarations, a.importRecords} {
		if e != nil {
			e.Close()
		}
	}
}

// Close shuts the language servers down (bounded) and frees the parser. It
// is safe to call more than once.
func (a *App) Close() error {
	// The validator's background work first: a job that started after
	// the servers stopped would start them (and the emitters) again.
	a.Validator.Close()
	a.StopServers()
	a.Parser.Close()
	for _, f := range a.logs {
		f.Close()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.session != nil {
		a.session.Close()
	}
	return nil
}

// lazyFile opens its file on the first write, so runs that never start a
// server create no session directory.
type lazyFile struct {
	mu   sync.Mutex
	open func() (io.Writer, error)
	w    io.Writer
	err  error
	done bool
}

func (l *lazyFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		l.w, l.err = l.open()
		l.done = true
	}
	if l.err != nil {
		return len(p), nil // logging must never fail the work
	}
	return l.w.Write(p)
}

func (l *lazyFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// projectCheck is the [check] table as the validator takes it; nil when
// it sets no command (config.ReadFile has checked its format).
func projectCheck(c config.CheckConfig) *shadow.ProjectCheck {
	if c.Command == "" {
		return nil
	}
	return &shadow.ProjectCheck{Command: c.Command, Format: diagformat.Format(c.Format), Languages: c.Languages, Files: c.Files}
}
