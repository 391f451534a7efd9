package reach

import (
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// EmbeddedBy returns a Go file of files whose //go:embed directive names
// rel ("" if none): the go command reads rel to build that package, so a
// change to it (a deletion above all: "pattern version.txt: no matching
// files found") is the package's. Patterns are read over-approximately
// (a pattern that matches any directory above rel names all of it, build
// constraints are not applied): a file is never left out that the go
// command embeds.
func EmbeddedBy(files Files, rel string) string {
	for _, goFile := range files.Sorted() {
		if !strings.HasSuffix(goFile, ".go") {
			continue
		}
		dir := path.Dir(goFile)
		under := rel
		if dir != "." {
			var ok bool
			if under, ok = strings.CutPrefix(rel, dir+"/"); !ok {
				continue
			}
		}
		src, err := os.ReadFile(files[goFile].Abs)
		if err != nil {
			continue
		}
		for _, m := range embedLine.FindAllSubmatch(src, -1) {
			for _, pat := range embedPatterns(string(m[1])) {
				if embedMatches(pat, under) {
					return goFile
				}
			}
		}
	}
	return ""
}

// embedLine is a //go:embed directive and its patterns.
var embedLine = regexp.MustCompile(`(?m)^[ \t]*//go:embed[ \t]+(.*)$`)

// embedPatterns splits a directive's patterns: space-separated, or
// quoted in Go syntax; "all:" only widens what a directory takes.
func embedPatterns(s string) []string {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		var pat string
		if s[0] == '"' || s[0] == '`' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return append(out, s) // kept whole: matched as it is
			}
			pat, _ = strconv.Unquote(q)
			s = s[len(q):]
		} else {
			pat, s, _ = strings.Cut(s, " ")
		}
		out = append(out, strings.TrimPrefix(pat, "all:"))
	}
	return out
}

// embedMatches reports whether pattern names rel (relative to the
// package's directory) or a directory above it.
func embedMatches(pattern, rel string) bool {
	for p := rel; p != "." && p != ""; p = path.Dir(p) {
		if ok, _ := path.Match(pattern, p); ok {
			return true
		}
	}
	return false
}

// goBuildInputs are the extensions of the files beside a package's Go
// files that the go command assembles or links into it (its SFiles and
// SysoFiles); C and C++ files of a cgo package are the C/C++ checker's.
var goBuildInputs = map[string]bool{".s": true, ".S": true, ".sx": true, ".syso": true}

// GoCommandReads says why the go command reads rel, a file that is not Go
// source ("" if it does not): an assembly or object file in a directory
// that holds a Go package, whose build assembles it (a broken one fails
// go build, a changed frame size go vet's asmdecl), or a vendor
// directory's modules.txt, which must agree with go.mod ("inconsistent
// vendoring"). Build constraints are not applied: a file is never left
// out that some build reads.
func GoCommandReads(files Files, rel string) string {
	if path.Base(rel) == "modules.txt" && path.Base(path.Dir(rel)) == "vendor" {
		return "the go command reads the vendor directory's manifest with go.mod"
	}
	if !goBuildInputs[path.Ext(rel)] {
		return ""
	}
	dir := path.Dir(rel)
	for _, f := range files.Sorted() {
		if strings.HasSuffix(f, ".go") && path.Dir(f) == dir {
			return "the go command builds it into the package of " + f
		}
	}
	return ""
}
