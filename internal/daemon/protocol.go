package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/config"
	"github.com/anvil-dev/anvil/internal/servers"
	"github.com/anvil-dev/anvil/internal/service"
	"github.com/anvil-dev/anvil/internal/shadow"
	"github.com/anvil-dev/anvil/internal/state"
)

// The daemon speaks JSON-RPC 2.0 with Content-Length framing over its
// socket. Every request but hello, status and stop names the workspace it
// is about.
const (
	methodHello  = "anvil/hello"
	methodCheck  = "anvil/check"
	methodCommit = "anvil/commit"
	methodUndo   = "anvil/undo"
	methodTool   = "anvil/tool"
	methodWarm   = "anvil/warm"
	methodTools  = "anvil/tools"
	methodStatus = "anvil/status"
	methodStop   = "anvil/stop"
	// Notifications: progress from the daemon about a request, and a
	// client's cancellation of one; both name the request by the token it
	// was sent with.
	methodProgress = "anvil/progress"
	methodCancel   = "anvil/cancel"
)

// Error codes beside JSON-RPC's own.
const (
	// codeInput is a request the caller can fix ([service.InputError]).
	codeInput = 4000
	// codeBusy is a workspace whose queue of waiting requests is full.
	codeBusy = 4001
)

type helloParams struct {
	Version string `json:"version"`
}

type progressParams struct {
	Token string `json:"token"`
	service.Progress
}

type cancelParams struct {
	Token string `json:"token"`
}

type helloResult struct {
	Version string `json:"version"`
	PID     int    `json:"pid"`
}

// request is what every workspace request carries: the workspace, and the
// token its progress and cancellation go by.
type request struct {
	Workspace string `json:"workspace"`
	// Identity is the workspace directory's identity as the client saw it
	// when it sent the request (device and inode): the daemon answers only
	// for that directory, never for another at the same path.
	Identity string `json:"identity,omitempty"`
	Token    string `json:"token,omitempty"`
}

type changesParams struct {
	request
	Changes []changeset.Spec `json:"changes"`
	Message string           `json:"message,omitempty"`
	service.GateOptions
}

type undoParams struct {
	request
	service.UndoOptions
}

type warmParams struct {
	request
	Paths []string `json:"paths"`
}

type toolParams struct {
	request
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
	// Staged are contents the tool reads instead of the disk's.
	Staged []changeset.Spec `json:"staged,omitempty"`
}

// Status is what 'anvil serve status' shows.
type Status struct {
	PID        int               `json:"pid"`
	Version    string            `json:"version"`
	Started    time.Time         `json:"started"`
	Idle       time.Duration     `json:"idle_limit"`
	Workspaces []WorkspaceStatus `json:"workspaces"`
	// MemoryBoundKiB is the bound everything the daemon starts shares,
	// and ChildrenKiB what it holds now (see memory.go).
	MemoryBoundKiB int64 `json:"memory_bound_kib"`
	ChildrenKiB    int64 `json:"children_kib"`
}

// WorkspaceStatus is one workspace the daemon holds.
type WorkspaceStatus struct {
	Dir      string         `json:"dir"`
	IdleFor  time.Duration  `json:"idle_for"`
	Active   int            `json:"active"`
	Requests int            `json:"requests"`
	Servers  []ServerStatus `json:"servers"`
	// Background is the work done ahead of need, with why: at most one
	// job per checker, for the latest disk state.
	Background []shadow.BackgroundJob `json:"background,omitempty"`
}

// ServerStatus is one language server of a workspace.
type ServerStatus struct {
	Name     string `json:"name"`
	Version  string `json:"version,omitempty"`
	PID      int    `json:"pid,omitempty"`
	RSSKiB   int64  `json:"rss_kib,omitempty"`
	Restarts int    `json:"restarts,omitempty"`
}

// Version identifies this build of Anvil, so that a client and a daemon of
// different builds never talk: the executable's size and modification
// time, which any rebuild or upgrade changes, cheap to read on every start.
func Version() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	st, err := os.Stat(exe)
	if err != nil {
		return "unknown"
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%d", exe, st.Size(), st.ModTime().UnixNano())))
	return hex.EncodeToString(sum[:8])
}

// SocketPath returns where the daemon for this environment listens:
// in [state.DaemonDir]. The name carries a digest of what the daemon's answers depend
// on besides the workspace (see [verdictEnv]): clients whose answers would
// differ reach different daemons. getenv reads the environment Anvil started with.
func SocketPath(getenv func(string) string) string {
	return filepath.Join(state.DaemonDir(getenv), "daemon-"+environmentDigest(getenv)+".sock")
}

// verdictEnv are the variables a daemon's answers depend on: where Anvil
// keeps its state and configuration and finds its tools (as they resolve,
// so that unset and set-to-the-default agree), where programs are found,
// and the toolchains' own settings, which change what a compiler or a
// test run says about the same files (build tags, target platform, the
// Python environment, Node's module path).
var verdictEnv = []string{
	"PATH",
	"GOFLAGS", "GOOS", "GOARCH", "CGO_ENABLED", "GOWORK", "GOPATH", "GOMODCACHE", "GOPROXY", "GOTOOLCHAIN", "GOEXPERIMENT",
	"VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH", "PYTHONHOME",
	"NODE_PATH", "NODE_OPTIONS",
}

func environmentDigest(getenv func(string) string) string {
	h := sha256.New()
	fmt.Fprintf(h, "state=%s\x00config=%s\x00tools=%s\x00", state.Dir(getenv), config.DefaultPaths("", getenv).User, servers.DefaultToolsDir(getenv))
	for _, k := range verdictEnv {
		if v := getenv(k); v != "" {
			fmt.Fprintf(h, "%s=%s\x00", k, v)
		}
	}
	// The variables the user's [run] env hands the run stage decide its
	// verdicts too (only the user's file names them).
	if user, err := config.ReadFile(config.DefaultPaths("", getenv).User); err == nil {
		for _, k := range user.Run.Env {
			fmt.Fprintf(h, "run:%s=%s\x00", k, getenv(k))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}
