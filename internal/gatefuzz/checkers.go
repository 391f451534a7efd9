package gatefuzz

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/proc"
)

// The batch checkers, each run once over a workspace of many projects.
// Errors are "file: code: message", without positions (an edit shifts
// them), the file relative to its project's folder.

// solution is tsc's build file that names every project of a batch
// workspace: `tsc -b` builds each project as its own program, in one
// process, which is what makes many small projects cheap.
const solution = "fuzz-solution.json"

var tscLine = regexp.MustCompile(`^(.+?)\(\d+,\d+\): error (TS\d+): (.*)$`)

var tscNoFile = regexp.MustCompile(`^error (TS\d+): (.*)$`)

func (l TS) Errors(ctx context.Context, dir string, names []string) (map[string][]string, error) {
	var refs []string
	for _, n := range names {
		refs = append(refs, fmt.Sprintf(`{"path": %q}`, n))
	}
	sol := `{"files": [], "references": [` + strings.Join(refs, ", ") + "]}\n"
	if err := os.WriteFile(filepath.Join(dir, solution), []byte(sol), 0o644); err != nil {
		return nil, err
	}
	if len(l.Tsc) == 0 {
		return nil, errors.New("no tsc")
	}
	out, errOut, err := proc.Run(ctx, proc.Spec{Path: l.Tsc[0], Args: append(l.Tsc[1:], "-b", solution), Dir: dir})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	errs := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(append(out, errOut...)))
	sc.Buffer(nil, 1<<20)
	found := false
	for sc.Scan() {
		line := sc.Text()
		if m := tscLine.FindStringSubmatch(line); m != nil {
			name, file := splitProject(m[1])
			errs[name] = append(errs[name], file+": "+m[2]+": "+m[3])
			found = true
		} else if m := tscNoFile.FindStringSubmatch(line); m != nil {
			return nil, fmt.Errorf("tsc reports an error of no file, no evidence: %s", line)
		}
	}
	if err != nil && !found {
		return nil, fmt.Errorf("tsc -b: %v: %.2000s%s", err, out, errOut)
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

// Pyright runs the pyright command line once over every project: the
// workspace's pyrightconfig.json names each project's folder as an
// execution root.
type Pyright struct{ Argv []string }

func pyrightErrors(ctx context.Context, argv []string, dir string) (map[string][]string, error) {
	out, errOut, err := proc.Run(ctx, proc.Spec{Path: argv[0], Args: append(argv[1:], "--outputjson"), Dir: dir})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var rep struct {
		Diagnostics []struct {
			File     string `json:"file"`
			Severity string `json:"severity"`
			Rule     string `json:"rule"`
			Message  string `json:"message"`
		} `json:"generalDiagnostics"`
	}
	if jerr := json.Unmarshal(out, &rep); jerr != nil {
		return nil, fmt.Errorf("pyright: %v, output %v: %.500s%.500s", err, jerr, out, errOut)
	}
	errs := map[string][]string{}
	for _, d := range rep.Diagnostics {
		if d.Severity != "error" {
			continue
		}
		rel, rerr := filepath.Rel(dir, d.File)
		if rerr != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("pyright reports an error outside the workspace: %s: %s", d.File, d.Message)
		}
		name, file := splitProject(rel)
		errs[name] = append(errs[name], file+": "+d.Rule+": "+d.Message)
	}
	return errs, nil
}

var vetFinding = regexp.MustCompile(`^(?:vet: )?(\S+?\.go):\d+(?::\d+)?: (.*)$`)

// goErrors runs go build and go vet over the workspace's one module, each
// project a tree of packages in its folder. An error in loading the
// packages (an import of a package that is gone, an embed pattern that
// matches nothing) stops go before it compiles anything, for every
// project: such errors are the truth of the projects they name, and go
// runs again without those.
func goErrors(ctx context.Context, dir string, names []string) (map[string][]string, error) {
	errs := map[string][]string{}
	seen := map[string]bool{}
	left := slices.Clone(names)
	for _, verb := range []string{"build", "vet"} {
		for len(left) > 0 {
			args := []string{verb}
			for _, n := range left {
				args = append(args, "./"+n+"/...")
			}
			out, errOut, err := proc.Run(ctx, proc.Spec{Path: "go", Args: args, Dir: dir, Env: []string{"GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off"}})
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			compiled := false
			failed := map[string]bool{}
			sc := bufio.NewScanner(bytes.NewReader(append(out, errOut...)))
			for sc.Scan() {
				line := sc.Text()
				if strings.HasPrefix(line, "# ") {
					compiled = true
				}
				m := vetFinding.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				name, file := splitProject(strings.TrimPrefix(m[1], "./"))
				failed[name] = true
				e := name + "/" + file + ": " + m[2]
				if seen[e] {
					continue // build and vet both report a type error
				}
				seen[e] = true
				errs[name] = append(errs[name], file+": "+m[2])
			}
			switch {
			case err == nil:
				left = nil
			case len(failed) == 0:
				return nil, fmt.Errorf("go %s: %v: %.2000s", verb, err, errOut)
			case compiled:
				left = nil
			default:
				// Load errors: go compiled nothing; again without them.
				left = slices.DeleteFunc(left, func(n string) bool { return failed[n] })
				names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return failed[n] })
			}
		}
		left = slices.Clone(names)
	}
	return errs, nil
}
