package pyconfig

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/anvil-dev/anvil/internal/tsconfig"
)

// maxExtends bounds an extends chain (and catches cycles).
const maxExtends = 16

// Extended returns the workspace-relative files the configuration in
// directory dir extends, directly or through others ("extends", a path
// from the extending file's directory, to a JSON file or a pyproject.toml):
// pyright merges them into the project's options, so a change to one is
// a change to the project's configuration. What cannot be read ends the
// chain.
func Extended(root, dir string) []string {
	c, found, err := Read(root, dir)
	if !found || err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{c.File: true}
	cur := c.File
	ext := c.extends
	for range maxExtends {
		if ext == "" {
			break
		}
		next, ok := extendedPath(root, cur, ext)
		if !ok || seen[next] {
			break
		}
		seen[next] = true
		out = append(out, next)
		r, ok := readFile(filepath.Join(root, filepath.FromSlash(next)))
		if !ok {
			break
		}
		cur, ext = next, r.Extends
	}
	return out
}

// readFile reads a configuration file of any name: TOML's [tool.pyright]
// for a .toml file, else JSON with comments.
func readFile(abs string) (*raw, bool) {
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, false
	}
	if strings.HasSuffix(abs, ".toml") {
		var doc struct {
			Tool struct {
				Pyright *raw `toml:"pyright"`
			} `toml:"tool"`
		}
		if _, err := toml.Decode(string(data), &doc); err != nil || doc.Tool.Pyright == nil {
			return nil, false
		}
		return doc.Tool.Pyright, true
	}
	var r raw
	if json.Unmarshal(tsconfig.StripJSONC(data), &r) != nil {
		return nil, false
	}
	return &r, true
}
