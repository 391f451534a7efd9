// Package compiledb finds and reads a C or C++ project's compile database
// the way clangd does: compile_commands.json (or compile_flags.txt) in the
// directory of a file or one of its parents, or in a build/ directory
// beside them. The database is what makes a C/C++ file checkable: the
// include paths and macros of its compile command decide what it means.
package compiledb

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Names of the files clangd reads a compile database from.
const (
	CommandsFile = "compile_commands.json"
	FlagsFile    = "compile_flags.txt"
)

// Fix says how to make a compile database, in the words 'anvil doctor'
// uses.
const Fix = "generate compile_commands.json at the project's root or in build/: " +
	"cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -B build (CMake), bear -- make (Make, with Debian's bear), " +
	"meson setup build (Meson writes one), or a compile_flags.txt with one compiler flag per line"

// NotFoundError says no compile database governs a file.
type NotFoundError struct {
	File string
	// Searched are the directories looked in, nearest first.
	Searched []string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no %s or %s for %s (looked in its directory and every parent, and in a build/ beside each, as clangd does); fix: %s",
		CommandsFile, FlagsFile, e.File, Fix)
}

// Find returns the compile database clangd would use for file (absolute):
// in each directory from the file's own up to the file system's root, a
// compile_commands.json, then a compile_flags.txt, then
// build/compile_commands.json.
func Find(file string) (string, error) {
	var searched []string
	for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
		searched = append(searched, dir)
		for _, p := range []string{filepath.Join(dir, CommandsFile), filepath.Join(dir, FlagsFile), filepath.Join(dir, "build", CommandsFile)} {
			if info, err := os.Stat(p); err == nil && !info.IsDir() {
				return p, nil
			}
		}
		if parent := filepath.Dir(dir); parent == dir {
			break
		}
	}
	return "", &NotFoundError{File: file, Searched: searched}
}

// IsNotFound reports whether err is a [*NotFoundError].
func IsNotFound(err error) bool {
	var nf *NotFoundError
	return errors.As(err, &nf)
}

// Command is how one translation unit is compiled.
type Command struct {
	// Dir is the directory the compiler runs in; File the source file;
	// both absolute and clean.
	Dir, File string
	// Args is the whole command line, compiler first.
	Args []string
}

// DB is a compile database.
type DB struct {
	// Path is the file it was read from.
	Path string
	// Commands are compile_commands.json's entries, in its order.
	Commands []Command
	// Flags are compile_flags.txt's flags, for every file under its
	// directory (Flags is nil for a compile_commands.json).
	Flags  []string
	byFile map[string]int
}

// Load reads the compile database at path (a compile_commands.json or a
// compile_flags.txt).
func Load(path string) (*DB, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse reads data as the compile database at path would be read (a
// change's content before it is written).
func Parse(path string, data []byte) (*DB, error) {
	var err error
	db := &DB{Path: path, byFile: map[string]int{}}
	if filepath.Base(path) == FlagsFile {
		db.Flags = []string{}
		for _, line := range strings.Split(string(data), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				db.Flags = append(db.Flags, line)
			}
		}
		return db, nil
	}
	var entries []struct {
		Directory string   `json:"directory"`
		File      string   `json:"file"`
		Arguments []string `json:"arguments"`
		Command   string   `json:"command"`
	}
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, e := range entries {
		if e.Directory == "" || e.File == "" {
			return nil, fmt.Errorf("%s: entry %d has no directory or no file", path, i+1)
		}
		dir := e.Directory
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(filepath.Dir(path), dir)
		}
		dir = filepath.Clean(dir)
		file := e.File
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		args := e.Arguments
		if args == nil {
			if args, err = SplitCommand(e.Command); err != nil {
				return nil, fmt.Errorf("%s: entry %d: %w", path, i+1, err)
			}
		}
		if len(args) == 0 {
			return nil, fmt.Errorf("%s: entry %d has no command", path, i+1)
		}
		c := Command{Dir: dir, File: filepath.Clean(file), Args: args}
		if _, dup := db.byFile[c.File]; !dup {
			db.byFile[c.File] = len(db.Commands)
		}
		db.Commands = append(db.Commands, c)
	}
	return db, nil
}

// SourceExts are the extensions of translation units (what a compile
// command compiles); headers are everything else the graph follows.
var SourceExts = []string{".c", ".cc", ".cpp", ".cxx", ".c++", ".cp", ".m", ".mm"}

// IsSource reports whether path is a translation unit's source by its
// extension.
func IsSource(path string) bool {
	return slices.Contains(SourceExts, strings.ToLower(filepath.Ext(path)))
}

// For returns file's compile command: its entry in compile_commands.json,
// or for compile_flags.txt the flags of the file's directory tree with
// the compiler of its language. ok is false when the database has none
// for it.
func (db *DB) For(file string) (Command, bool) {
	file = filepath.Clean(file)
	if db.Flags != nil {
		base := filepath.Dir(db.Path)
		if !IsSource(file) || !within(base, file) {
			return Command{}, false
		}
		cc := "cc"
		if strings.ToLower(filepath.Ext(file)) != ".c" {
			cc = "c++"
		}
		return Command{Dir: base, File: file, Args: append(append([]string{cc}, db.Flags...), file)}, true
	}
	i, ok := db.byFile[file]
	if !ok {
		return Command{}, false
	}
	return db.Commands[i], true
}

// Covers reports whether the database holds a command for file.
func (db *DB) Covers(file string) bool {
	_, ok := db.For(file)
	return ok
}

func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// IncludeDirs are where a compile command looks for included files,
// absolute, in the compiler's order.
type IncludeDirs struct {
	// Quote are searched for #include "…" only (-iquote), before Angle.
	Quote []string
	// Angle are searched for both forms (-I, -isystem, -idirafter).
	Angle []string
	// Forced are files read before the source (-include, -imacros), as
	// given.
	Forced []string
	// Unread: the command has arguments that may add or reorder search
	// directories which Anvil does not read (a response file, a
	// sysroot, -iprefix and its kin), so a file other than the one the
	// directories above find may be the compiler's.
	Unread bool
	// ForcesUnread: a response file Anvil does not read (outside the
	// compilation's directory, past its bounds) may force any file in
	// (-include), so the unit may read any file.
	ForcesUnread bool
}

// searchUnread reports whether the argument a may change where the
// compiler looks for includes in a way Includes does not read.
func searchUnread(a string) bool {
	for _, p := range []string{"@", "--sysroot", "-isysroot", "-iprefix", "-iwithprefix", "-iwithprefixbefore", "-I-", "-cxx-isystem", "-isystem-after", "--include-prefix", "--include-with-prefix", "-F", "-iframework"} {
		if strings.HasPrefix(a, p) {
			return true
		}
	}
	return false
}

// Includes returns c's include directories, with what its response
// files (@file) say read in place.
func (c Command) Includes() IncludeDirs {
	var d IncludeDirs
	abs := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.Dir, p)
		}
		return filepath.Clean(p)
	}
	if len(c.Args) == 0 {
		return d
	}
	args := append(c.Args[:1:1], c.withResponseFiles(c.Args[1:], 0)...)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if i > 0 && searchUnread(a) {
			d.Unread = true
		}
		if i > 0 && strings.HasPrefix(a, "@") {
			d.ForcesUnread = true // withResponseFiles left it unread
		}
		for _, opt := range []string{"-iquote", "-isystem", "-idirafter", "-include", "-imacros", "-I", "--include-directory-after", "--include-directory", "--include", "--imacros"} {
			if !strings.HasPrefix(a, opt) || strings.HasPrefix(opt, "--") && a != opt && !strings.HasPrefix(a, opt+"=") {
				continue
			}
			v := strings.TrimPrefix(strings.TrimPrefix(a, opt), "=")
			if v == "" && i+1 < len(args) {
				i++
				v = args[i]
			}
			if v == "" {
				break
			}
			switch opt {
			case "-iquote":
				d.Quote = append(d.Quote, abs(v))
			case "-include", "-imacros", "--include", "--imacros": // -imacros keeps the file's macros: a change to them is the unit's
				d.Forced = append(d.Forced, v)
			default:
				d.Angle = append(d.Angle, abs(v))
			}
			break
		}
	}
	return d
}

// SyntaxOnly returns c's command line changed to check the file and write
// nothing: no output file, no dependency files, -fsyntax-only and no
// colours in the diagnostics.
func (c Command) SyntaxOnly() []string {
	return append(c.withoutOutputs(), "-fsyntax-only", "-fdiagnostics-color=never")
}

// Dependencies returns c's command line changed to only preprocess the
// file and write, to depfile, every file it reads (-M), a missing header
// listed by its name rather than stopping (-MG), without warnings.
func (c Command) Dependencies(depfile string) []string {
	return append(c.withoutOutputs(), "-M", "-MG", "-MF", depfile, "-w", "-fdiagnostics-color=never")
}

// withoutOutputs returns c's command line without what makes it write a
// file or pick its output's kind: -o, -c, -S, -E, the dependency options
// and the diagnostics' colours.
func (c Command) withoutOutputs() []string {
	out := []string{c.Args[0]}
	for i := 1; i < len(c.Args); i++ {
		a := c.Args[i]
		switch {
		case a == "-o" || a == "-MF" || a == "-MT" || a == "-MQ":
			i++ // and its value
		case strings.HasPrefix(a, "-o") && len(a) > 2, a == "-MD", a == "-MMD", a == "-MP", a == "-M", a == "-MM",
			strings.HasPrefix(a, "-MF"), strings.HasPrefix(a, "-MT"), strings.HasPrefix(a, "-MQ"),
			strings.HasPrefix(a, "-fdiagnostics-color"), a == "-fcolor-diagnostics", a == "-c", a == "-S", a == "-E":
		default:
			out = append(out, a)
		}
	}
	return out
}

// SplitCommand splits a compile_commands.json "command" into words as a
// POSIX shell would (quotes and backslashes; no expansions).
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated ' in command")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New(`unterminated " in command`)
			}
			inWord = true
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
