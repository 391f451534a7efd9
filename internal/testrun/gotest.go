package testrun

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/sandbox"
)

// goRunner builds and tests a Go module's packages that a change can
// affect: the packages holding a changed file and every package that
// imports one of them, directly or not, tests included (go list -deps
// -test). Each package's build failure is its own ("build <package>"), so
// one package that does not build hides nothing of the others, whose
// tests still run. The build cache is Anvil's own (code under test may
// write it), so the go command's test cache skips what the change cannot
// reach from one run to the next.
type goRunner struct {
	// pkgs are the packages to test, build those of them with non-test
	// files; nil: every package.
	pkgs, build []string
	note        string
}

func (r goRunner) command() string {
	if r.pkgs == nil {
		return "go build -json ./... && go test -json ./..."
	}
	return "go build -json " + strings.Join(r.build, " ") + " && go test -json " + strings.Join(r.pkgs, " ")
}

// goEnv points the go command at Anvil's build cache.
func (s *Stage) goEnv() []string {
	return []string{"GOCACHE=" + s.cachePath("go-build")}
}

// goEvent is a line of go build -json or go test -json. Build output
// comes as "build-output" events of an ImportPath, ended by "build-fail";
// a test package whose build failed names it as FailedBuild.
type goEvent struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string
	FailedBuild string
}

// listFormat is how go list -deps -test prints a package for
// forChanges: its import path, directory, non-test Go files and
// dependencies.
const listFormat = `{{.ImportPath}}	{{.Dir}}	{{len .GoFiles}}	{{join .Deps " "}}`

func (r goRunner) forChanges(ctx context.Context, s *call, set *changeset.Set) runner {
	res, err := s.exec(ctx, toSandbox(set), execSpec{argv: []string{"go", "list", "-e", "-deps", "-test", "-f", listFormat, "./..."}, env: s.goEnv(), cache: "go-build", parsed: true})
	if err != nil || res.ExitCode != 0 {
		return r // every package: the go command will say what is wrong
	}
	// The go command reports directories as the shadow tree has them:
	// the workspace's real path.
	rootDir := s.root.Dir()
	if real, err := filepath.EvalSymlinks(rootDir); err == nil {
		rootDir = real
	}
	changedDirs := map[string]bool{}
	for _, c := range set.Changes() {
		base := path.Base(c.Path)
		if base == "go.mod" || base == "go.sum" || base == "go.work" || base == "go.work.sum" {
			return r // the module graph changed: every package
		}
		changedDirs[filepath.Join(rootDir, filepath.FromSlash(path.Dir(c.Path)))] = true
	}
	type pkg struct {
		path string
		dir  string
		deps []string
	}
	var pkgs []pkg
	own := map[string]string{} // the module's packages: import path → directory
	buildable := map[string]bool{}
	for _, line := range strings.Split(string(res.Output), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			continue
		}
		p := pkg{path: f[0], dir: f[1], deps: strings.Fields(f[3])}
		pkgs = append(pkgs, p)
		if under(p.dir, rootDir) {
			own[plainPackage(p.path)] = p.dir
			if f[2] != "0" {
				buildable[plainPackage(p.path)] = true
			}
		}
	}
	// A changed file belongs to the package of its directory, or (data,
	// testdata) to the nearest package above it.
	changed := map[string]bool{}
	for dir := range changedDirs {
		for d := dir; under(d, rootDir); d = filepath.Dir(d) {
			found := false
			for ip, pd := range own {
				if pd == d {
					changed[ip] = true
					found = true
				}
			}
			if found || d == rootDir {
				break
			}
		}
	}
	affected := map[string]bool{}
	for _, p := range pkgs {
		ip := plainPackage(p.path)
		if _, ok := own[ip]; !ok {
			continue
		}
		if changed[ip] || slices.ContainsFunc(p.deps, func(d string) bool { return changed[plainPackage(d)] }) {
			affected[ip] = true
		}
	}
	if len(affected) == 0 {
		r.note = "no package of the module holds or imports a changed file"
		r.pkgs = []string{}
		return r
	}
	r.pkgs = slices.Sorted(maps.Keys(affected))
	r.build = slices.DeleteFunc(slices.Clone(r.pkgs), func(p string) bool { return !buildable[p] })
	r.note = fmt.Sprintf("%d %s affected: the changed ones and those that import them", len(r.pkgs), plural(len(r.pkgs), "package", "packages"))
	return r
}

// plainPackage strips go list's test-variant suffixes: "p [p.test]",
// "p_test", "p.test" are all p.
func plainPackage(ip string) string {
	if i := strings.Index(ip, " ["); i >= 0 {
		ip = ip[:i]
	}
	ip = strings.TrimSuffix(ip, ".test")
	return strings.TrimSuffix(ip, "_test")
}

func (r goRunner) run(ctx context.Context, s *call, changes []sandbox.Change, only []string) (*outcome, error) {
	o := newOutcome()
	o.note = r.note
	if r.pkgs != nil && len(r.pkgs) == 0 {
		return o, nil // nothing the change reaches
	}
	target, build := r.pkgs, r.build
	if target == nil {
		target, build = []string{"./..."}, []string{"./..."}
	}
	env := s.goEnv()
	if only == nil && len(build) > 0 {
		// Every affected package built on its own, tests or not.
		res, err := s.exec(ctx, changes, execSpec{argv: append([]string{"go", "build", "-json"}, build...), env: env, cache: "go-build", parsed: true})
		if err != nil {
			return nil, err
		}
		if res.Killed {
			return o, nil
		}
		parseGoBuild(res.Output, o)
		if res.ExitCode != 0 && len(o.failed) == 0 {
			// Failed without naming a package: go itself (a bad go.mod).
			o.failed["build"] = true
			o.output["build"] = trimOutput(string(res.Output), 40)
			return o, nil
		}
	}
	argv := []string{"go", "test", "-json"}
	if only != nil {
		pkgs, run := selection(only)
		argv = append(append(argv, "-count=1", "-run", run), pkgs...)
	} else {
		argv = append(argv, target...)
	}
	res, err := s.exec(ctx, changes, execSpec{argv: argv, env: env, cache: "go-build", parsed: true})
	if err != nil {
		return nil, err
	}
	parseGoTest(res.Output, o)
	if res.ExitCode != 0 && len(o.failed) == 0 && !res.Killed {
		// Failed without naming a test or a package: go itself.
		o.failed["go test"] = true
		o.output["go test"] = trimOutput(string(res.Output), 40)
	}
	return o, nil
}

// parseGoBuild records each package whose build failed as "build
// <package>", with the compiler's output.
func parseGoBuild(out []byte, o *outcome) {
	builds := map[string]*strings.Builder{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var e goEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e.Action {
		case "build-output":
			b := builds[e.ImportPath]
			if b == nil {
				b = &strings.Builder{}
				builds[e.ImportPath] = b
			}
			if b.Len() < 64<<10 {
				b.WriteString(e.Output)
			}
		case "build-fail":
			name := "build " + plainPackage(e.ImportPath)
			o.failed[name] = true
			if b := builds[e.ImportPath]; b != nil {
				o.output[name] = b.String()
			}
		}
	}
}

// parseGoTest records each failed test as "package.Test" (subtests as
// "package.Test/sub"), a test package whose build failed as "build
// <package>" (the same name go build's failure has), a package that
// failed outside its tests (TestMain, a panic between tests) as
// "package", with their output; and counts the tests that ran.
func parseGoTest(out []byte, o *outcome) {
	outputs := map[string]*strings.Builder{}
	testsFailed := map[string]bool{} // packages with a failed test
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	builds := map[string]*strings.Builder{}
	failedBuild := map[string]string{} // package → its failed build
	for sc.Scan() {
		var e goEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if e.Action == "build-output" {
			b := builds[e.ImportPath]
			if b == nil {
				b = &strings.Builder{}
				builds[e.ImportPath] = b
			}
			b.WriteString(e.Output)
			continue
		}
		if e.Package == "" {
			continue
		}
		if e.FailedBuild != "" {
			failedBuild[e.Package] = e.FailedBuild
		}
		name := e.Package
		if e.Test != "" {
			name += "." + e.Test
		}
		switch e.Action {
		case "output":
			b := outputs[name]
			if b == nil {
				b = &strings.Builder{}
				outputs[name] = b
			}
			if b.Len() < 64<<10 {
				b.WriteString(e.Output)
			}
		case "pass":
			if e.Test != "" {
				o.tests++
			}
		case "fail":
			if e.Test != "" {
				o.tests++
				o.failed[name] = true
				top, _, _ := strings.Cut(e.Test, "/")
				o.retry[name] = e.Package + "\x00" + top
				testsFailed[e.Package] = true
			} else if !testsFailed[e.Package] {
				o.failed[name] = true
			}
		}
	}
	for name := range o.failed {
		fb, ok := failedBuild[name]
		if !ok {
			if b := outputs[name]; b != nil {
				o.output[name] = b.String()
			}
			continue
		}
		// The package's test build failed: named as its build failure,
		// so that a package that did not build before either is one
		// pre-existing failure, whichever command saw it.
		delete(o.failed, name)
		key := "build " + plainPackage(fb)
		o.failed[key] = true
		if b := builds[fb]; b != nil && o.output[key] == "" {
			o.output[key] = b.String()
		}
	}
}

// selection turns retry selectors ("package\x00TopLevelTest") into
// packages and a -run pattern of the test names.
func selection(tests []string) (pkgs []string, run string) {
	names := map[string]bool{}
	seen := map[string]bool{}
	for _, t := range tests {
		pkg, name, ok := strings.Cut(t, "\x00")
		if !ok {
			continue
		}
		if !seen[pkg] {
			seen[pkg] = true
			pkgs = append(pkgs, pkg)
		}
		names[regexp.QuoteMeta(name)] = true
	}
	var alts []string
	for n := range names {
		alts = append(alts, n)
	}
	slices.Sort(alts)
	return pkgs, fmt.Sprintf("^(%s)$", strings.Join(alts, "|"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// under reports whether p is dir or lies below it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
