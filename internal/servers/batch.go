package servers

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// BatchCompiler is a server's compiler run over whole projects, for
// checks too large to ask about file by file.
type BatchCompiler struct {
	Kind  string // "tsc", "pyright"
	Argv  []string
	Label string // names it in verdicts
	// FreshState: its incremental state must not be carried from one
	// disk state to the next. TypeScript 7.0's tsc --incremental misses
	// what a change of a script's global on disk breaks (TypeScript 6's
	// does not), so each disk state's first run starts from none.
	FreshState bool
}

// BatchCommand returns the batch checker of the same compiler as the
// server. ok is false for servers without one (gopls reports dependants
// itself; a server a user configures has none known).
func (s *Server) BatchCommand() (BatchCompiler, bool) {
	spec := s.resolved.Spec
	switch {
	case spec.Mode == ModeTSServer && spec.tsserver != "":
		tsc := filepath.Join(filepath.Dir(spec.tsserver), "tsc.js")
		if _, err := os.Stat(tsc); err != nil {
			return BatchCompiler{}, false
		}
		argv := []string{s.resolved.Path, tsc}
		if spec.quietDeprecations {
			argv = append(argv, "--ignoreDeprecations", fmt.Sprintf("%d.0", majorOf(spec.version)))
		}
		return BatchCompiler{Kind: "tsc", Argv: argv, Label: "tsc " + spec.version}, true
	case spec.Name == "tsgo":
		return typeScript7Compiler(s.resolved.Path, cleanVersion(s.Info().Version)), true
	case spec.Name == "pyright":
		cli := filepath.Join(filepath.Dir(s.resolved.Path), "pyright")
		if _, err := os.Stat(cli); err != nil {
			return BatchCompiler{}, false
		}
		return BatchCompiler{Kind: "pyright", Argv: []string{cli}, Label: strings.TrimSpace("pyright " + s.Info().Version)}, true
	}
	return BatchCompiler{}, false
}

// typeScript7Compiler is TypeScript 7's tsc at path, of version (""
// when unknown), as a batch checker: the one place that says how it runs.
func typeScript7Compiler(path, version string) BatchCompiler {
	return BatchCompiler{Kind: "tsc", Argv: []string{path}, Label: "tsc " + nonEmpty(version, "7"), FreshState: true}
}

func nonEmpty(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}
