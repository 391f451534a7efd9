package testrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/anvil-dev/anvil/internal/sandbox"
)

// cargoRunner builds a Rust package and runs its tests with cargo,
// offline (the shadow tree has no network unless allowed). Its target
// directory is a cache of Anvil's own, outside the tree: in the shadow
// tree's target/ every build would start cold and be thrown away.
type cargoRunner struct{}

func (cargoRunner) command() string { return "cargo build && cargo test" }

// cargoResult is a line of libtest's output: "test tests::adds ... FAILED".
var cargoResult = regexp.MustCompile(`^test (\S+) \.\.\. (ok|FAILED|ignored)`)

func (cargoRunner) run(ctx context.Context, s *Stage, changes []sandbox.Change, only []string) (*outcome, error) {
	o := newOutcome()
	env := append(append([]string{}, s.opts.Env...), "CARGO_TARGET_DIR="+cargoTarget(s.root.Dir()), "CARGO_TERM_COLOR=never")
	st := &Stage{root: s.root, opts: s.opts}
	st.opts.Env = env
	if only == nil {
		res, err := st.exec(ctx, changes, "cargo", "build", "--offline", "--all-targets")
		if err != nil {
			return nil, err
		}
		if res.ExitCode != 0 {
			o.failed["build"] = true
			o.output["build"] = trimOutput(string(res.Output), 40)
			return o, nil
		}
	}
	argv := []string{"cargo", "test", "--offline", "--no-fail-fast"}
	if only != nil {
		argv = append(append(argv, "--", "--exact"), only...)
	}
	res, err := st.exec(ctx, changes, argv...)
	if err != nil {
		return nil, err
	}
	out := string(res.Output)
	for _, line := range strings.Split(out, "\n") {
		if m := cargoResult.FindStringSubmatch(line); m != nil && m[2] == "FAILED" {
			o.failed[m[1]] = true
			o.retry[m[1]] = m[1]
			o.output[m[1]] = cargoSection(out, m[1])
		}
	}
	if res.ExitCode != 0 && len(o.failed) == 0 && !res.Killed {
		o.failed["cargo test"] = true
		o.output["cargo test"] = trimOutput(out, 40)
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

// cargoTarget is the workspace's target directory in Anvil's cache.
func cargoTarget(root string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(base, "anvil", "cargo-target", hex.EncodeToString(sum[:8]))
}
