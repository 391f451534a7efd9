package shadow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/anvil-dev/anvil/internal/execpolicy"
	"os"
	"path/filepath"
	"strings"

	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/proc"
)

// gopls treats a go.mod overlay as an editor buffer: a require of a module
// that does not exist is a warning ("not used in this module") there, and
// go build fails on it. So a change to go.mod or go.sum is also checked by
// the go command itself: it loads the module graph the new files describe
// (go list -m all), from copies outside the workspace named with -modfile,
// and reports what fails to load. The go command writing its answer is
// the evidence; the user's go.mod and go.sum are never touched.

// moduleGraphErrors returns the go command's errors for the module in dir
// with the given go.mod and go.sum contents (sum may be nil), as
// diagnostics on go.mod. The go command runs on the host with the
// policy's environment.
func moduleGraphErrors(ctx context.Context, policy *execpolicy.Policy, dir string, mod, sum []byte) ([]lsp.Diagnostic, error) {
	if policy == nil {
		return nil, errors.New("no execution policy to run the go command with")
	}
	tmp, err := os.MkdirTemp("", "anvil-gomod-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	modFile := filepath.Join(tmp, "go.mod")
	if err := os.WriteFile(modFile, mod, 0o600); err != nil {
		return nil, err
	}
	if sum != nil {
		// -modfile=x/go.mod uses x/go.sum beside it.
		if err := os.WriteFile(filepath.Join(tmp, "go.sum"), sum, 0o600); err != nil {
			return nil, err
		}
	}
	// GOWORK=off: -modfile does not combine with a workspace, and each
	// module's graph is what this checks. -mod=mod lets the command fill
	// in the copies (missing go.sum lines) as go get would.
	stdout, stderr, err := proc.Run(ctx, proc.Spec{
		Path: "go", Args: []string{"list", "-modfile=" + modFile, "-mod=mod", "-m", "-e", "-json", "all"},
		Dir: dir, Env: policy.Env("GOWORK=off", "GOFLAGS="),
	})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var exitErr interface{ ExitCode() int }
	if err != nil && !errors.As(err, &exitErr) {
		return nil, fmt.Errorf("go list: %w", err)
	}
	clean := func(s string) string { return strings.ReplaceAll(s, modFile, "go.mod") }
	var out []lsp.Diagnostic
	dec := json.NewDecoder(bytes.NewReader(stdout))
	for dec.More() {
		var m struct {
			Path  string
			Error *struct{ Err string }
		}
		if dec.Decode(&m) != nil {
			break
		}
		if m.Error != nil {
			out = append(out, moduleDiag(mod, m.Path, clean(m.Error.Err)))
		}
	}
	if err != nil && len(out) == 0 {
		// The graph did not load at all (a syntax error, an unknown
		// directive): the command says why on stderr.
		msg := strings.TrimSpace(clean(string(stderr)))
		if msg == "" {
			msg = err.Error()
		}
		out = append(out, moduleDiag(mod, "", msg))
	}
	return out, nil
}

// moduleDiag places an error about module path on the go.mod line that
// names it, or on the first line.
func moduleDiag(mod []byte, path, msg string) lsp.Diagnostic {
	line := 0
	if path != "" {
		for i, l := range strings.Split(string(mod), "\n") {
			if strings.Contains(l, path+" ") || strings.HasSuffix(strings.TrimSpace(l), path) {
				line = i
				break
			}
		}
	}
	return lsp.Diagnostic{
		Range:    lsp.Range{Start: lsp.Position{Line: line}, End: lsp.Position{Line: line}},
		Severity: lsp.SeverityError, Source: "go list", Message: msg,
	}
}
