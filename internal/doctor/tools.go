package doctor

import (
	"bytes"
	"context"
	"time"

	"github.com/anvil-dev/anvil/internal/proc"
)

// toolTimeout bounds one "--version" call; a tool that takes longer than
// this to print its version is broken.
const toolTimeout = 5 * time.Second

// tool is a helper program doctor looks for. None is required: Anvil has a
// built-in search engine and reads .gitignore itself.
type tool struct {
	name, why, fix string
}

func tools() []tool {
	return []tool{
		{"rg", "without ripgrep, text search uses the built-in engine, slower on large trees",
			"install ripgrep (apt install ripgrep, brew install ripgrep) or put rg on PATH"},
		{"git", "git is how you review and revert what Anvil commits in a repository",
			"install git"},
		{"patch", "patch applies the unified diffs 'anvil --plan-only' and --json print",
			"install patch (apt install patch, brew install gpatch)"},
	}
}

// checkTools runs each tool's --version, with env.
func checkTools(ctx context.Context, lookPath func(string) (string, error), env []string) []Check {
	var checks []Check
	for _, t := range tools() {
		c := Check{Group: GroupTool, Name: t.name}
		path, err := lookPath(t.name)
		if err != nil {
			c.Status, c.Detail, c.Fix = Warn, "not found on PATH; "+t.why, t.fix
			checks = append(checks, c)
			continue
		}
		version, err := firstLine(ctx, env, path, "--version")
		if err != nil {
			c.Status, c.Detail, c.Fix = Warn, path+" --version failed: "+err.Error(), t.fix
		} else {
			c.Detail = version + " at " + path
		}
		checks = append(checks, c)
	}
	return checks
}

// firstLine runs path with args as a version probe (see probe) and
// returns the first line of its output.
func firstLine(ctx context.Context, env []string, path string, args ...string) (string, error) {
	out, err := probe(ctx, env, path, args...)
	if err != nil {
		return "", err
	}
	line, _, _ := bytes.Cut(out, []byte("\n"))
	return string(bytes.TrimSpace(line)), nil
}

// probe runs a tool's version command, bounded by toolTimeout, with env
// (the policy's for the host) in "/": a tool run in the workspace would
// read its files, and rustup's proxy would run the toolchain a
// rust-toolchain file there names, a program of the repository's own.
// It returns what the tool wrote to stdout and stderr.
func probe(ctx context.Context, env []string, path string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, toolTimeout)
	defer cancel()
	stdout, stderr, err := proc.Run(ctx, proc.Spec{Path: path, Args: args, Dir: "/", Env: env})
	return append(stdout, stderr...), err
}
