package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// ripgrepWaitDelay bounds how long Wait waits for rg's pipes to close after
// rg is killed. rg starts no children that could hold them open, so this
// only keeps a surprise from hanging a search.
const ripgrepWaitDelay = 2 * time.Second

// ripgrepFlags makes rg search the files [workspace.Root.Walk] visits, read
// them as the Go engine does, and ignore any configuration of the machine.
// Checked against rg 13.0.0's --help.
func ripgrepFlags() []string {
	return []string{
		// The machine's configuration (RIPGREP_CONFIG_PATH) must not change
		// what follows.
		"--no-config",
		// Skip unreadable files and bad ignore lines silently, like Walk.
		"--no-messages", "--no-ignore-messages",
		// Hidden files are part of the workspace; .git is not (a .git file,
		// as in a submodule, is searched, as Walk visits it).
		"--hidden", "--glob", "!.git/",
		// Never follow symlinks: Walk reports them and moves on.
		"--no-follow",
		// .gitignore files apply outside git repositories too, but .ignore
		// files and the user's core.excludesFile are not workspace rules.
		"--no-require-git", "--no-ignore-dot", "--no-ignore-global",
		// Ignore files above the start and .git/info/exclude come through
		// --ignore-file instead (see ripgrepIgnores).
		"--no-ignore-parent", "--no-ignore-exclude",
		// No BOM sniffing, so a UTF-16 file is binary to both engines.
		"--encoding", "none",
		// Binary detection is then the same for a named file as for a
		// walked one.
		"--no-mmap",
	}
}

// ripgrepArgs returns rg's arguments for p, after ripgrepFlags. The pattern
// goes through --regexp and the path after "--", so neither can be read as
// a flag whatever it holds.
func ripgrepArgs(p *plan, ignoreFile string) []string {
	args := []string{"--max-count", strconv.Itoa(FileMatchBound)}
	if ignoreFile != "" {
		args = append(args, "--ignore-file", ignoreFile)
	}
	if p.glob != nil {
		// A type filter only narrows what rg reads (unlike --glob, which
		// would override the ignore rules); the glob filter still decides.
		if name, ok := p.glob.nameGlob(); ok {
			args = append(args, "--type-add", "anvilglob:"+name, "--type", "anvilglob")
		}
	}
	if p.literal {
		args = append(args, "--fixed-strings")
	}
	if p.fold {
		args = append(args, "--ignore-case")
	}
	if p.context > 0 {
		args = append(args, "--context", strconv.Itoa(p.context))
	}
	return append(args, "--regexp", p.pattern, "--", p.start.Rel)
}

// searchRipgrep runs rg with JSON output and feeds its events to col. rg is
// killed when ctx ends or when the match bound is reached.
func (s *Searcher) searchRipgrep(ctx context.Context, p *plan, col *collector) error {
	ignoreFile := ""
	if ignores := s.ripgrepIgnores(p); ignores != nil {
		f, err := os.CreateTemp("", "anvil-rg-ignore-*")
		if err != nil {
			return fmt.Errorf("search: ripgrep ignore file: %w", err)
		}
		ignoreFile = f.Name()
		defer os.Remove(ignoreFile)
		_, err = f.Write(ignores)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("search: ripgrep ignore file: %w", err)
		}
	}

	runCtx, kill := context.WithCancel(ctx)
	defer kill()
	args := append(append([]string{"--json"}, ripgrepFlags()...), ripgrepArgs(p, ignoreFile)...)
	cmd := exec.CommandContext(runCtx, s.rg, args...)
	cmd.Dir = s.root.Dir()
	cmd.WaitDelay = ripgrepWaitDelay
	stderr := &capped{max: 16 << 10}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("search: start ripgrep: %w", err)
	}
	ev := newEventReader(out, p, col, s.bound)
	readErr := ev.run()
	if readErr != nil || col.stopped {
		kill() // stop rg; what it would still print is not wanted
	}
	waitErr := cmd.Wait()

	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case readErr != nil:
		return fmt.Errorf("search: reading ripgrep output: %w", readErr)
	case col.stopped:
		return nil
	}
	var exit *exec.ExitError
	if waitErr == nil || (errors.As(waitErr, &exit) && exit.ExitCode() == 1) {
		return nil // 1: no match
	}
	if ev.summary && errors.As(waitErr, &exit) && exit.ExitCode() == 2 {
		return nil // some file could not be read; the search itself ran
	}
	msg := strings.TrimSpace(stderr.String())
	if strings.Contains(msg, "regex") {
		return &PatternError{
			Pattern:   p.pattern,
			Msg:       patternMessage(msg),
			LineBreak: strings.Contains(msg, `literal '"\n"' is not allowed`),
		}
	}
	return fmt.Errorf("search: ripgrep: %w: %s", waitErr, msg)
}

// patternMessage keeps the part of rg's error that is about the pattern,
// dropping advice about flags the caller cannot pass.
func patternMessage(msg string) string {
	if i := strings.Index(msg, "\n\nConsider enabling multiline"); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

// capped is an io.Writer that keeps the first max bytes written to it.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }
