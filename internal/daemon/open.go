package daemon

import (
	"context"
	"errors"
	"fmt"

	"github.com/anvil-dev/anvil/internal/app"
	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// OpenOptions say how a front end (anvil check, anvil tool, anvil mcp)
// reaches a workspace's gate.
type OpenOptions struct {
	// Dir is the workspace.
	Dir string
	// Getenv reads the environment the front end started with (the
	// composition root's).
	Getenv func(string) string
	// NoDaemon serves the workspace in this process, with servers of its
	// own that stop when it ends. So does ANVIL_DAEMON=off.
	NoDaemon bool
	// Warn is told why the daemon is not used when it was meant to be.
	Warn func(string)
	// OneRequest: the caller makes one request and exits ('anvil
	// check', a hook). Served in this process, it starts no work ahead
	// of need, which its exit would cancel (app.Options.OneRequest).
	OneRequest bool
}

// Open returns the service for o.Dir: the daemon's (started if need be),
// or, when it is turned off or cannot be reached, one in this process.
// close releases what Open took.
func Open(ctx context.Context, o OpenOptions) (svc service.Service, close func(), err error) {
	// The workspace is judged here, so a bad one is the caller's error
	// whichever way it is served.
	root, err := workspace.New(o.Dir)
	if err != nil {
		return nil, nil, &service.InputError{Msg: err.Error()}
	}
	if o.Warn != nil {
		// Said here, where the user sees it, whichever side reads the
		// config: the daemon's app ignores the same settings.
		if l, err := config.ReadLayers(config.DefaultPaths(root.Dir(), o.Getenv)); err == nil && l.IgnoredNotice() != "" {
			o.Warn(l.IgnoredNotice())
		}
		if n := app.TrustNotice(root.Dir(), o.Getenv); n != "" {
			o.Warn(n)
		}
	}
	if o.daemonWanted() {
		ws, closeWS, err := Workspace(ctx, o.Getenv, root.Dir())
		if err == nil {
			return ws, closeWS, nil
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if o.Warn != nil {
			o.Warn(fmt.Sprintf("the Anvil daemon is not available (%v); using language servers of this run's own", err))
		}
	}
	a, err := app.New(app.Options{Dir: root.Dir(), Getenv: o.Getenv, OneRequest: o.OneRequest})
	if err != nil {
		return nil, nil, &service.InputError{Msg: err.Error()}
	}
	return a.Service(), func() { a.Close() }, nil
}

// daemonWanted says whether o is served by the daemon, when it can be
// reached.
func (o OpenOptions) daemonWanted() bool {
	return !o.NoDaemon && o.Getenv("ANVIL_DAEMON") != "off"
}

// ErrNoDaemon is Shared's answer when the daemon is turned off.
var ErrNoDaemon = errors.New("the Anvil daemon is turned off")

// Shared returns the daemon's service for o.Dir (the daemon started if
// need be), never one in this process: for work that is only worth doing
// where it outlives the caller (a session's warm-up, which a process of
// its own would start and stop at once). ErrNoDaemon when o turns the
// daemon off.
func Shared(ctx context.Context, o OpenOptions) (service.Service, func(), error) {
	if !o.daemonWanted() {
		return nil, nil, ErrNoDaemon
	}
	root, err := workspace.New(o.Dir)
	if err != nil {
		return nil, nil, &service.InputError{Msg: err.Error()}
	}
	return Workspace(ctx, o.Getenv, root.Dir())
}

// Workspace reaches the daemon (starting it if need be) and returns its
// service for dir, with no fallback: for a caller that has servers of its
// own to fall back on (an agent run's app).
func Workspace(ctx context.Context, getenv func(string) string, dir string) (service.Service, func(), error) {
	l, err := NewLink(ctx, ConnectOptions{Socket: SocketPath(getenv)})
	if err != nil {
		return nil, nil, err
	}
	ws, err := l.Workspace(dir)
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	return ws, func() { l.Close() }, nil
}
