package pyconfig

import (
	"encoding/json"
	"fmt"
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
	walkExtends(root, c.File, c.extends, func(path string, _ *raw) bool {
		out = append(out, path)
		return true
	})
	return out
}

// walkExtends follows the extends chain of the configuration file (whose
// own extends is ext), calling visit with each base's workspace-relative
// path and its contents (nil for one that does not read, the last one
// visited) until visit returns false or the chain ends. It returns why the
// chain was cut short: a base outside the workspace, a loop, one that does
// not read, a chain past maxExtends ("" when it ended or visit stopped).
func walkExtends(root, file, ext string, visit func(path string, r *raw) bool) string {
	seen := map[string]bool{file: true}
	cur := file
	for range maxExtends {
		if ext == "" {
			return ""
		}
		next, ok := extendedPath(root, cur, ext)
		if !ok || seen[next] {
			return fmt.Sprintf("%s extends %s, which is not read here", cur, ext)
		}
		seen[next] = true
		r, ok := readFile(filepath.Join(root, filepath.FromSlash(next)))
		if !ok {
			visit(next, nil)
			return fmt.Sprintf("%s extends %s, which does not read", cur, next)
		}
		if !visit(next, r) {
			return ""
		}
		cur, ext = next, r.Extends
	}
	if ext != "" {
		return fmt.Sprintf("%s: an extends chain longer than %d", file, maxExtends)
	}
	return ""
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
