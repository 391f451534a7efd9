package servers

import (
	"os"
	"path/filepath"
	"strings"
)

// BatchCommand returns the batch checker of the same compiler as the
// server, for checks too large to ask about file by file: the kind ("tsc",
// "pyright"), the command that starts it and a label for verdicts. ok is
// false for servers without one (gopls reports dependants itself; a server
// a user configures has none known).
func (s *Server) BatchCommand() (kind string, argv []string, label string, ok bool) {
	spec := s.resolved.Spec
	switch {
	case spec.Mode == ModeTSServer && spec.tsserver != "":
		tsc := filepath.Join(filepath.Dir(spec.tsserver), "tsc.js")
		if _, err := os.Stat(tsc); err != nil {
			return "", nil, "", false
		}
		return "tsc", []string{s.resolved.Path, tsc}, "tsc " + spec.version, true
	case spec.Name == "tsgo":
		return "tsc", []string{s.resolved.Path}, "tsc " + nonEmpty(cleanVersion(s.Info().Version), "7"), true
	case spec.Name == "pyright":
		cli := filepath.Join(filepath.Dir(s.resolved.Path), "pyright")
		if _, err := os.Stat(cli); err != nil {
			return "", nil, "", false
		}
		return "pyright", []string{cli}, strings.TrimSpace("pyright " + s.Info().Version), true
	}
	return "", nil, "", false
}

func nonEmpty(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}
