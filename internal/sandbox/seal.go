package sandbox

import (
	"path/filepath"
	"slices"

	"github.com/anvil-dev/anvil/internal/envlist"
)

// Seal is what every command in a shadow tree inherits of the host,
// whoever starts it: an environment of allow-listed names (see
// [SealedEnv]), the places it must not see even inside a toolchain shown
// (the credential stores, Anvil's state and configuration), and the
// toolchains and their caches as the toolchains report them ([Toolchains]).
// One is made per workspace by the execution policy.
type Seal struct {
	Env     []string
	Hidden  []string
	Visible []string
	// Host are the host's places a run uses and hides, as the
	// environment Anvil started with names them (read once, by the
	// policy: this package reads no environment).
	Host HostPlaces
}

// HostPlaces are where a run makes its scratch and what it must hide.
type HostPlaces struct {
	// TempDir is the host's temporary directory, where the run's scratch
	// directory is made ("" means /tmp).
	TempDir string
	// PlacesFile records the temporary directories runs have used, so
	// that a run sweeps what killed ones left wherever TMPDIR was (""
	// sweeps TempDir alone).
	PlacesFile string
	// RuntimeDir is the user's runtime directory (XDG_RUNTIME_DIR),
	// hidden from the command beside /run/user.
	RuntimeDir string
}

// sealed returns spec with its seal laid under it: the seal's
// environment with spec's own variables set over it, and the seal's
// hidden and visible places beside spec's.
func (s Spec) sealed() Spec {
	s.Env = envlist.With(slices.Clone(s.Seal.Env), s.Env...)
	s.Hidden = append(slices.Clone(s.Seal.Hidden), s.Hidden...)
	s.Visible = append(slices.Clone(s.Seal.Visible), s.Visible...)
	return s
}

// PlacesFile is where the temporary directories runs have made scratch
// directories in are listed, a line each, in Anvil's cache directory.
func PlacesFile(cacheDir string) string { return filepath.Join(cacheDir, "scratch-places") }

// RuntimeDirs are the user's runtime directories: where the daemon's
// socket, the session bus and the keyring's sockets live; runtime is
// XDG_RUNTIME_DIR. No program Anvil starts sees them, in a shadow tree or
// on the host.
func RuntimeDirs(runtime string) []string {
	dirs := []string{"/run/user"}
	if d := runtime; filepath.IsAbs(d) && !inside(filepath.Clean(d), "/run/user") {
		dirs = append(dirs, filepath.Clean(d))
	}
	return dirs
}
