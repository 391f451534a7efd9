package doctor

import (
	"bytes"
	"context"
	"os/exec"
	"time"
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

// checkTools runs each tool's --version.
func checkTools(ctx context.Context, lookPath func(string) (string, error)) []Check {
	var checks []Check
	for _, t := range tools() {
		c := Check{Group: GroupTool, Name: t.name}
		path, err := lookPath(t.name)
		if err != nil {
			c.Status, c.Detail, c.Fix = Warn, "not found on PATH; "+t.why, t.fix
			checks = append(checks, c)
			continue
		}
		version, err := firstLine(ctx, path, "--version")
		if err != nil {
			c.Status, c.Detail, c.Fix = Warn, path+" --version failed: "+err.Error(), t.fix
		} else {
			c.Detail = version + " at " + path
		}
		checks = append(checks, c)
	}
	return checks
}

// firstLine runs a command and returns the first line of its output.
func firstLine(ctx context.Context, path string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, toolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.WaitDelay = time.Second // a child holding the pipe must not hang us
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", err
	}
	line, _, _ := bytes.Cut(out, []byte("\n"))
	return string(bytes.TrimSpace(line)), nil
}
