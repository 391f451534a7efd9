// Package demo bundles the example project and the replayed model turns
// that 'anvil demo' runs: a rename across a small TypeScript codebase whose
// first commit is rejected because an importer breaks, and whose second is
// clean. The language servers, the shadow workspace and the journal are
// real; only the model's turns are replayed.
package demo

import (
	"bytes"
	"embed"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/anvil-dev/anvil/internal/llm/replay"
)

// Request is the demo's request.
const Request = "Rename the User type to Account across all files"

//go:embed all:project
var project embed.FS

//go:embed rename.jsonl
var script []byte

// Extract writes the example project into dir.
func Extract(dir string) error {
	sub, err := fs.Sub(project, "project")
	if err != nil {
		return err
	}
	return fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(sub, p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// Provider returns a fresh replay of the demo's model turns.
func Provider() (*replay.Provider, error) {
	return replay.Parse(bytes.NewReader(script))
}

// Script returns the replay script, for tests and for 'anvil demo --script'.
func Script() []byte { return append([]byte(nil), script...) }
