package testrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/sandbox"
)

// cargoRunner builds a Rust package or workspace and runs its tests with
// cargo, offline (the shadow tree has no network unless allowed). A crate
// that does not compile is its own failure ("build <crate>"), and the
// other crates' tests still run: cargo stops at the first crate that
// fails, so the run goes again without it. The target directory is a
// cache of Anvil's own, outside the tree: in the shadow tree's target/
// every build would start cold and be thrown away.
type cargoRunner struct{}

func (cargoRunner) command() string { return "cargo test --workspace --no-fail-fast" }

// cargoResult is a line of libtest's output: "test tests::adds ... FAILED".
var cargoResult = regexp.MustCompile(`(?m)^test (\S+) \.\.\. (ok|FAILED|ignored)`)

// cargoCompileError names a crate that failed to compile.
var cargoCompileError = regexp.MustCompile("error: could not compile `([^`]+)`")

// maxCargoRetries bounds the runs that drop a crate that does not compile.
const maxCargoRetries = 8

func (s *Stage) cargoEnv() []string {
	sum := sha256.Sum256([]byte(s.root.Dir()))
	env := []string{"CARGO_TARGET_DIR=" + s.cachePath("cargo-target/"+hex.EncodeToString(sum[:8])), "CARGO_TERM_COLOR=never"}
	// Cargo creates its home when there is none, which the read-only home
	// refuses: without one, it gets a fresh one in the private /tmp (an
	// offline build of a crate without dependencies needs nothing there).
	home := lookupEnv(s.env, "CARGO_HOME")
	if home == "" && lookupEnv(s.env, "HOME") != "" {
		home = filepath.Join(lookupEnv(s.env, "HOME"), ".cargo")
	}
	if _, err := os.Stat(home); home == "" || err != nil {
		env = append(env, "CARGO_HOME=/tmp/cargo-home")
	}
	return env
}

// lookupEnv returns name's value in env, "" if unset.
func lookupEnv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

func (cargoRunner) run(ctx context.Context, s *call, changes []sandbox.Change, only []string) (*outcome, error) {
	o := newOutcome()
	o.tests = 0
	var excluded []string
	for range maxCargoRetries {
		argv := []string{"cargo", "test", "--offline", "--workspace", "--no-fail-fast"}
		for _, c := range excluded {
			argv = append(argv, "--exclude", c)
		}
		if only != nil {
			argv = append(append(argv, "--", "--exact"), only...)
		}
		res, err := s.exec(ctx, changes, execSpec{argv: argv, env: s.cargoEnv(), cache: "cargo-target", parsed: true})
		if err != nil {
			return nil, err
		}
		if res.Killed {
			return o, nil
		}
		out := string(res.Output)
		for _, m := range cargoResult.FindAllStringSubmatch(out, -1) {
			if m[2] == "ignored" {
				continue
			}
			o.tests++
			if m[2] == "FAILED" {
				o.failed[m[1]] = true
				o.retry[m[1]] = m[1]
				o.output[m[1]] = cargoSection(out, m[1])
			}
		}
		var broken []string
		for _, m := range cargoCompileError.FindAllStringSubmatch(out, -1) {
			if !slices.Contains(excluded, m[1]) && !slices.Contains(broken, m[1]) {
				broken = append(broken, m[1])
			}
		}
		for _, c := range broken {
			name := "build " + c
			o.failed[name] = true
			o.output[name] = trimOutput(out, 40)
		}
		if len(broken) == 0 {
			if res.ExitCode != 0 && len(o.failed) == 0 {
				o.failed["cargo test"] = true
				o.output["cargo test"] = trimOutput(out, 40)
			}
			return o, nil
		}
		excluded = append(excluded, broken...)
	}
	return o, nil
}

// cargoSection is the test's captured output: the block under
// "---- name stdout ----".
func cargoSection(out, name string) string {
	_, after, ok := strings.Cut(out, "---- "+name+" stdout ----\n")
	if !ok {
		return ""
	}
	if i := strings.Index(after, "\n\n"); i >= 0 {
		after = after[:i]
	}
	return after
}
