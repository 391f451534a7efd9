package sandbox

import (
	"os"
	"path/filepath"
)

// hostSeal is the seal a test's command gets: nothing of the host's
// environment, and the host's places as the test's environment names
// them now (a test may have moved TMPDIR, XDG_CACHE_HOME or
// XDG_RUNTIME_DIR), as the execution policy would read them.
func hostSeal() *Seal {
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		cache = filepath.Join(os.Getenv("HOME"), ".cache")
	}
	return &Seal{Host: HostPlaces{
		TempDir:    os.TempDir(),
		PlacesFile: PlacesFile(filepath.Join(cache, "anvil")),
		RuntimeDir: os.Getenv("XDG_RUNTIME_DIR"),
	}}
}
