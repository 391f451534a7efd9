package agent

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Classification is how the Orchestrator routes a request, with the reason
// it can show the user.
type Classification struct {
	// Complex requests go through the Planner and the approval gate;
	// simple ones go to the Executor, scoped to the files they name.
	Complex bool     `json:"complex"`
	Files   []string `json:"files"`   // distinct file paths the request names
	Keyword string   `json:"keyword"` // the keyword that made it complex, if any
	Reason  string   `json:"reason"`
}

// complexKeywords mark requests that reach across a codebase. Matched as
// whole words (so "renamed" in a sentence still counts, "moveable" not).
const complexKeywords = `rename|renames|renamed|renaming|refactor|refactors|refactoring|migrate|migrating|migration|across|everywhere|restructure|reorganize|reorganise|split|extract|move|implement|redesign|replace all|all files|every file|throughout|codebase`

// filePathRE finds things that look like file paths: a name with an
// extension, possibly with directories, or a path with a slash.
var (
	keywordRE  = regexp.MustCompile(`(?i)\b(` + complexKeywords + `)\b`)
	filePathRE = regexp.MustCompile(`@?(?:[\w.-]+/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,5}\b|@?(?:[\w.-]+/)+[\w.-]+`)
	versionRE  = regexp.MustCompile(`^v?\d+(\.\d+)+$`)
)

// Classify routes request: complex when it uses a cross-cutting keyword or
// names two or more distinct files, or names none (so the Planner must find
// them); simple when it names one or more files and nothing else suggests
// breadth — those go straight to the Executor, scoped to the named files.
func Classify(request string) Classification {
	files := namedFiles(request)
	c := Classification{Files: files}
	if m := keywordRE.FindString(request); m != "" {
		c.Complex, c.Keyword = true, strings.ToLower(m)
		c.Reason = fmt.Sprintf("complex: the keyword %q suggests a change across files", c.Keyword)
		return c
	}
	switch {
	case len(files) >= 2:
		c.Complex = true
		c.Reason = fmt.Sprintf("complex: it names %d files", len(files))
	case len(files) == 0:
		c.Complex = true
		c.Reason = "complex: it names no file, so the Planner finds them"
	default:
		c.Reason = fmt.Sprintf("simple: it names one file (%s) and no cross-cutting keyword", files[0])
	}
	return c
}

// namedFiles returns the distinct file paths in s, without a leading @ or
// "./", sorted. Version numbers and common abbreviations are not paths.
func namedFiles(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range filePathRE.FindAllString(s, -1) {
		p := strings.TrimPrefix(strings.TrimPrefix(m, "@"), "./")
		p = strings.TrimRight(p, ".")
		if p == "" || seen[p] || looksLikeVersionOrAbbrev(p) {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func looksLikeVersionOrAbbrev(p string) bool {
	if versionRE.MatchString(p) {
		return true
	}
	switch strings.ToLower(p) {
	case "e.g", "i.e", "etc", "vs", "n/a", "and/or":
		return true
	}
	return false
}
