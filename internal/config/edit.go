package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/anvil-dev/anvil/internal/diagformat"
)

// SetInFile sets key k to value in the config file at path, creating the
// file if needed. Only the key's line changes: comments, other keys and
// the hand-edited [servers.NAME] tables are kept as they were. The value is
// validated first (a [*ValueError]); a file that does not parse is left
// alone and the error names it.
func SetInFile(path string, k Key, value string) error {
	return editFile(path, k, func(c *Config) error { return k.Set(c, value) })
}

// UnsetInFile removes key k from the config file at path, so the other file
// or the default applies. A missing file or key is not an error.
func UnsetInFile(path string, k Key) error {
	return editFile(path, k, func(c *Config) error { k.Clear(c); return nil })
}

func editFile(path string, k Key, change func(*Config) error) error {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	old, err := decode(path, data)
	if err != nil {
		return err
	}
	want := old
	if err := change(&want); err != nil {
		return err
	}
	line := k.Line(want)
	edited := replaceTopLevel(data, k.Name, line)
	if bytes.Equal(edited, data) && reflect.DeepEqual(old, want) {
		return nil // nothing to change: do not create or touch the file
	}
	// The line editor knows only simple layouts (no quoted or dotted keys);
	// when its result does not read back as intended, rewrite the file from
	// the decoded values instead, which is right but drops comments.
	if got, err := decode(path, edited); err != nil || !reflect.DeepEqual(got, want) {
		return write(path, want)
	}
	return writeFileAtomic(path, edited)
}

// decode parses a config file's content; path is for messages.
func decode(path string, data []byte) (Config, error) {
	var c Config
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&c)
	if err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		return Config{}, fmt.Errorf("config %s: unknown key %q", path, undecoded[0].String())
	}
	if c.Check.Command != "" || c.Check.Format != "" || c.Check.Languages != nil || c.Check.Files != nil {
		if err := diagformat.CheckCommand(c.Check.Command, c.Check.Format); err != nil {
			return Config{}, fmt.Errorf("config %s: %w", path, err)
		}
	}
	return c, nil
}

// encodeLine renders one top-level TOML assignment, without the newline.
func encodeLine(name string, v any) (string, error) {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(map[string]any{name: v}); err != nil {
		return "", err
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// replaceTopLevel returns data with the top-level assignment of name
// replaced by line (removed when line is ""), or line added after the last
// top-level assignment when there is none.
func replaceTopLevel(data []byte, name, line string) []byte {
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	insertAt := 0 // after the last top-level assignment
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		if strings.HasPrefix(trimmed, "[") {
			break // the first table: no more top-level keys
		}
		key, _, isAssign := strings.Cut(trimmed, "=")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || !isAssign {
			continue
		}
		end := valueEnd(lines, i)
		if strings.TrimSpace(key) == name {
			var repl []string
			if line != "" {
				repl = []string{line + "\n"}
			}
			out := append(append(append([]string{}, lines[:i]...), repl...), lines[end+1:]...)
			return []byte(strings.Join(out, ""))
		}
		i = end
		insertAt = end + 1
	}
	if line == "" {
		return data
	}
	before := strings.Join(lines[:insertAt], "")
	if before != "" && !strings.HasSuffix(before, "\n") {
		before += "\n"
	}
	after := strings.Join(lines[insertAt:], "")
	if insertAt == 0 && strings.HasPrefix(strings.TrimSpace(after), "[") {
		after = "\n" + after // keep a blank line before the first table
	}
	return []byte(before + line + "\n" + after)
}

// valueEnd returns the index of the last line of the assignment starting at
// line i: arrays may span lines, so it follows brackets outside strings.
func valueEnd(lines []string, i int) int {
	depth := 0
	var quote byte // the open string's quote, or 0
	for j := i; j < len(lines); j++ {
		s := lines[j]
		if j == i {
			_, s, _ = strings.Cut(s, "=")
		}
	scan:
		for p := 0; p < len(s); p++ {
			ch := s[p]
			switch {
			case quote != 0:
				if ch == '\\' && quote == '"' {
					p++
				} else if ch == quote {
					quote = 0
				}
			case ch == '"' || ch == '\'':
				quote = ch
			case ch == '#':
				break scan
			case ch == '[' || ch == '{':
				depth++
			case ch == ']' || ch == '}':
				depth--
			}
		}
		if depth <= 0 && quote == 0 {
			return j
		}
	}
	return len(lines) - 1
}

// writeFileAtomic replaces path with data through a temporary file and a
// rename, keeping the old file's permissions, so a crash never leaves half
// a config.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	f, err := os.CreateTemp(dir, ".config-*.toml")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
