package gatefuzz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/diagformat"
	"github.com/anvil-dev/anvil/internal/lsp"
	"github.com/anvil-dev/anvil/internal/proc"
)

// The batch checkers, each run once over a workspace of many projects.
// Errors are "file: code: message", without positions (an edit shifts
// them), the file relative to its project's folder.

// solution is tsc's build file that names every project of a batch
// workspace: `tsc -b` builds each project as its own program, in one
// process, which is what makes many small projects cheap.
const solution = "fuzz-solution.json"

func (l TS) Errors(ctx context.Context, dir string, names []string) (map[string][]string, error) {
	return tscBuild(ctx, l.Env, l.Tsc, dir, names)
}

// Second is TypeScript 6's compiler beside 7's, when Legacy names it.
func (l TS) Second() *Second {
	if len(l.Legacy) == 0 {
		return nil
	}
	// 6 deprecates options 7 removes, each side with its own code: a
	// project that sets one is expected to differ in its configuration.
	deprecated := "an option TypeScript 6 deprecates and 7 removes"
	return &Second{Checker: tsLegacy{argv: l.Legacy, env: l.Env}, Name: "TypeScript 6", Truth: "TypeScript 7", Versus: "TypeScript 6 vs 7",
		Kinds: map[string]string{"5101": deprecated, "5107": deprecated, "5102": deprecated, "5108": deprecated}}
}

// tsLegacy is TypeScript 6's compiler as a checker. It builds with
// --force: the same folders hold the build info TypeScript 7 wrote a
// moment before, and 6's check must not rest on its reading that as
// stale (which it does today, by the version the file records).
type tsLegacy struct{ argv, env []string }

func (c tsLegacy) Errors(ctx context.Context, dir string, names []string) (map[string][]string, error) {
	return tscBuild(ctx, c.env, c.argv, dir, names, "--force")
}

// tscBuild runs tsc -b over a solution naming the projects, with flags
// after it (tsc takes -b only as its first argument).
func tscBuild(ctx context.Context, env, tsc []string, dir string, names []string, flags ...string) (map[string][]string, error) {
	var refs []string
	for _, n := range names {
		refs = append(refs, fmt.Sprintf(`{"path": %q}`, n))
	}
	sol := `{"files": [], "references": [` + strings.Join(refs, ", ") + "]}\n"
	if err := os.WriteFile(filepath.Join(dir, solution), []byte(sol), 0o644); err != nil {
		return nil, err
	}
	if len(tsc) == 0 {
		return nil, errors.New("no tsc")
	}
	args := append(slices.Clone(tsc[1:]), "-b", solution)
	exit, out, err := run(ctx, env, dir, tsc[0], append(args, flags...)...)
	if err != nil {
		return nil, err
	}
	rep, err := diagformat.Parse(diagformat.TSC, diagformat.Input{Root: dir, Exit: exit, Output: out})
	if err != nil {
		return nil, err
	}
	return byProject(dir, rep.Files)
}

// run runs a checker to completion and returns its exit status and its
// output, standard error after standard output.
func run(ctx context.Context, env []string, dir, path string, args ...string) (int, []byte, error) {
	env = append(slices.Clone(env), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	out, errOut, err := proc.Run(ctx, proc.Spec{Path: path, Args: args, Dir: dir, Env: env})
	if ctx.Err() != nil {
		return 0, nil, ctx.Err()
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), append(out, errOut...), nil
	case err != nil:
		return 0, nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return 0, append(out, errOut...), nil
}

// byProject sorts a checker's errors by project: "file: code: message",
// the file relative to its project's folder. An error of no file is no
// evidence for any project.
func byProject(dir string, files map[string][]lsp.Diagnostic) (map[string][]string, error) {
	errs := map[string][]string{}
	for path, diags := range files {
		for _, d := range diags {
			if d.Severity != lsp.SeverityError {
				continue
			}
			if path == "" {
				return nil, fmt.Errorf("the checker reports an error of no file, no evidence: %s", d.Message)
			}
			rel, err := filepath.Rel(dir, path)
			if err != nil || !filepath.IsLocal(rel) {
				return nil, fmt.Errorf("the checker reports an error outside the workspace: %s: %s", path, d.Message)
			}
			name, file := splitProject(rel)
			errs[name] = append(errs[name], file+": "+strings.Trim(string(d.Code), `"`)+": "+d.Message)
		}
	}
	return errs, nil
}

// splitProject splits a workspace path into its project's folder and the
// path inside it.
func splitProject(p string) (name, rel string) {
	p = filepath.ToSlash(filepath.Clean(p))
	name, rel, _ = strings.Cut(p, "/")
	return name, rel
}

func pyrightErrors(ctx context.Context, env, argv []string, dir string) (map[string][]string, error) {
	exit, out, err := run(ctx, env, dir, argv[0], append(argv[1:], "--outputjson")...)
	if err != nil {
		return nil, err
	}
	files, err := batch.ParsePyright(exit, out)
	if err != nil {
		return nil, err
	}
	return byProject(dir, files)
}

// goErrors runs go build and go vet over the workspace's one module, each
// project a tree of packages in its folder. An error in loading the
// packages (an import of a package that is gone, an embed pattern that
// matches nothing) stops go before it compiles anything, for every
// project: such errors are the truth of the projects they name, and go
// runs again without those.
func goErrors(ctx context.Context, env []string, dir string, names []string) (map[string][]string, error) {
	var shared []string
	errs := newRunUnion()
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n, "go.mod")); err != nil {
			shared = append(shared, n)
			continue
		}
		// A module of its own: the workspace's module does not hold it,
		// so it is built and vetted from its own root.
		found, err := goRuns(ctx, env, dir, n, []string{n}, func(string) string { return "./..." })
		if err != nil {
			return nil, err
		}
		errs.merge(found)
	}
	found, err := goRuns(ctx, env, dir, ".", shared, func(n string) string { return "./" + n + "/..." })
	if err != nil {
		return nil, err
	}
	errs.merge(found)
	return errs.errs, nil
}

// goRuns builds and vets the projects names from the module rooted at
// dir/sub, each named to the go command by pattern.
func goRuns(ctx context.Context, env []string, dir, sub string, names []string, pattern func(string) string) (*runUnion, error) {
	errs := newRunUnion() // build and vet both report a type error
	left := slices.Clone(names)
	for _, verb := range []string{"build", "vet"} {
		for len(left) > 0 {
			args := []string{verb}
			for _, n := range left {
				args = append(args, pattern(n))
			}
			exit, out, err := run(ctx, env, filepath.Join(dir, sub), "go", args...)
			if err != nil {
				return nil, err
			}
			rep, err := diagformat.Parse(diagformat.GoVet, diagformat.Input{Root: dir, Dir: sub, Exit: exit, Output: out})
			if err != nil {
				return nil, fmt.Errorf("go %s: %w", verb, err)
			}
			found, err := byProject(dir, rep.Files)
			if err != nil {
				return nil, err
			}
			errs.add(found)
			// Compile errors come under a "# package" line; load errors
			// under none, and then go compiled nothing: again without them.
			if exit == 0 || bytes.Contains(out, []byte("\n# ")) || bytes.HasPrefix(out, []byte("# ")) {
				break
			}
			left = slices.DeleteFunc(left, func(n string) bool { return found[n] != nil })
			names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return found[n] != nil })
		}
		left = slices.Clone(names)
	}
	return errs, nil
}

// runUnion merges the errors of runs that may report the same one (go
// build and go vet a type error; every translation unit that includes a
// header the header's): an error counts as often as the one run that
// reports it most, so one error seen by two runs is one, and two uses
// that break alike in one file are two.
type runUnion struct {
	errs map[string][]string // by project
	kept map[string]int      // by project and error
}

func newRunUnion() *runUnion {
	return &runUnion{errs: map[string][]string{}, kept: map[string]int{}}
}

// merge takes the errors of runs over other projects.
func (u *runUnion) merge(o *runUnion) {
	for name, es := range o.errs {
		u.errs[name] = append(u.errs[name], es...)
	}
}

// add takes one run's errors, by project.
func (u *runUnion) add(found map[string][]string) {
	counted := map[string]int{}
	for name, es := range found {
		for _, e := range es {
			key := name + "\x00" + e
			if counted[key]++; counted[key] > u.kept[key] {
				u.kept[key]++
				u.errs[name] = append(u.errs[name], e)
			}
		}
	}
}
