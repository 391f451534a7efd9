package shadow

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// mutation is a change set for the corpus: the contents of the files it
// changes, by workspace-relative path.
type mutation struct {
	name    string
	changes map[string]string
}

// dialect is how mutations are written in one language.
type dialect struct {
	comment, helper, bad string
	// exported finds top-level declarations others can use (name in group
	// 1); function finds top-level functions, its %s standing for the
	// name, and its match ending where the parameter list starts.
	exported   *regexp.Regexp
	function   string
	extraParam string
	returnLine *regexp.Regexp
	// annotated finds functions that declare their return type, the match
	// ending where the body opens (a body-only edit goes there, with
	// bodyLine); inferred finds functions whose return type is inferred,
	// group 1 their name, and retype rewrites a return line of theirs so
	// the inferred type changes (the cut-off must follow such bodies).
	annotated *regexp.Regexp
	bodyLine  string
	inferred  *regexp.Regexp
	retype    func(line string) string
}

var dialects = map[string]dialect{
	".ts": {
		comment:    "\n// anvil corpus: a comment\n",
		helper:     "\nexport function anvilCorpusHelper(x: number): number {\n  return x + 1;\n}\n",
		bad:        "\nexport const anvilCorpusBad: number = \"s\" as string;\n",
		exported:   regexp.MustCompile(`(?m)^export (?:declare )?(?:abstract )?(?:async )?(?:function\*? |class |const |let |interface |type |enum )([A-Za-z_$][\w$]*)`),
		function:   `(?m)^export (?:async )?function %s(?:<[^>(]*>)?\(`,
		extraParam: "anvilExtra: number, ",
		returnLine: regexp.MustCompile(`(?m)^\s+return\b.*$`),
		annotated:  regexp.MustCompile(`(?m)^export (?:async )?function [A-Za-z_$][\w$]*(?:<[^>(]*>)?\([^)]*\): [^{\n]+\{\n`),
		bodyLine:   "  void \"anvil corpus: a body-only edit\";\n",
		inferred:   regexp.MustCompile(`(?m)^export function ([A-Za-z_$][\w$]*)(?:<[^>(]*>)?\([^)]*\) \{\n`),
		retype: func(line string) string {
			return regexp.MustCompile(`return\s+(.*?);?\s*$`).ReplaceAllString(line, "return [$1] as const;")
		},
	},
	".go": {
		comment:    "\n// anvil corpus: a comment\n",
		helper:     "\nfunc AnvilCorpusHelper(x int) int { return x + 1 }\n",
		bad:        "\nvar anvilCorpusBad int = \"s\"\n",
		exported:   regexp.MustCompile(`(?m)^(?:func|type) ([A-Z]\w*)\b`),
		function:   `(?m)^func %s\(`,
		extraParam: "anvilExtra int, ",
		returnLine: regexp.MustCompile(`(?m)^\s+return\b.*$`),
	},
	".py": {
		comment:    "\n# anvil corpus: a comment\n",
		helper:     "\n\ndef anvil_corpus_helper(x: int) -> int:\n    return x + 1\n",
		bad:        "\nanvil_corpus_bad: int = \"s\"\n",
		exported:   regexp.MustCompile(`(?m)^(?:def|class) ([A-Za-z]\w*)`),
		function:   `(?m)^def %s\(`,
		extraParam: "anvil_extra: int, ",
		returnLine: regexp.MustCompile(`(?m)^\s+return\b.*$`),
		annotated:  regexp.MustCompile(`(?m)^def [A-Za-z]\w*\([^)]*\) -> [^:\n]+:\n`),
		bodyLine:   "    _anvil_corpus_unused = 0\n",
		inferred:   regexp.MustCompile(`(?m)^def ([A-Za-z]\w*)\([^)]*\):\n`),
		retype: func(line string) string {
			return regexp.MustCompile(`return\s+(.*?)\s*$`).ReplaceAllString(line, "return ($1,)")
		},
	},
}

// mutations returns the corpus's change sets for the sources under dir:
// benign ones (a comment, a new function, a full rename), breaking ones
// (a type error, a new required parameter) and partial multi-file edits (an
// export renamed with only some of its users updated), picked with a fixed
// seed so that every run checks the same cases.
func mutations(t *testing.T, dir, ext string) []mutation {
	t.Helper()
	d := dialects[ext]
	files := map[string]string{}
	var paths []string
	_ = filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Ext(p) != ext || strings.HasSuffix(p, ".d.ts") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if strings.Contains(rel, "testdata/") {
			return nil
		}
		files[rel] = string(data)
		paths = append(paths, rel)
		return nil
	})
	sort.Strings(paths)
	rng := rand.New(rand.NewPCG(0xa9f1, uint64(len(paths))))
	pick := func() string { return paths[rng.IntN(len(paths))] }
	var out []mutation
	add := func(name string, changes map[string]string) {
		out = append(out, mutation{name: name, changes: changes})
	}

	for range 2 {
		f := pick()
		add("comment in "+f, map[string]string{f: files[f] + d.comment})
	}
	for range 2 {
		f := pick()
		add("new function in "+f, map[string]string{f: files[f] + d.helper})
	}
	for range 3 {
		f := pick()
		add("type error in "+f, map[string]string{f: files[f] + d.bad})
	}
	for n, tries := 0, 0; n < 2 && tries < 50; tries++ {
		f := pick()
		locs := d.returnLine.FindAllStringIndex(files[f], -1)
		if len(locs) == 0 {
			continue
		}
		l := locs[rng.IntN(len(locs))]
		add(fmt.Sprintf("return deleted in %s (line %d)", f, strings.Count(files[f][:l[0]], "\n")+1),
			map[string]string{f: files[f][:l[0]] + files[f][l[1]:]})
		n++
	}

	// Declarations used in other files, for the multi-file cases.
	type decl struct{ file, name string }
	var used []decl
	for _, f := range paths {
		for _, m := range d.exported.FindAllStringSubmatch(files[f], -1) {
			if len(users(files, paths, f, m[1])) >= 2 {
				used = append(used, decl{f, m[1]})
			}
		}
	}
	rng.Shuffle(len(used), func(i, j int) { used[i], used[j] = used[j], used[i] })
	for i, u := range used {
		if i == 4 {
			break
		}
		us := users(files, paths, u.file, u.name)
		word := regexp.MustCompile(`\b` + regexp.QuoteMeta(u.name) + `\b`)
		renamed := u.name + "Renamed"
		changes := map[string]string{u.file: word.ReplaceAllString(files[u.file], renamed)}
		kind := "partial rename"
		keep := len(us) / 2
		if i%2 == 1 {
			kind, keep = "full rename", len(us)
		}
		for _, f := range us[:keep] {
			changes[f] = word.ReplaceAllString(files[f], renamed)
		}
		add(fmt.Sprintf("%s of %s (%s, %d of %d users updated)", kind, u.name, u.file, keep, len(us)), changes)
	}
	functionNamed := func(name string) *regexp.Regexp {
		return regexp.MustCompile(fmt.Sprintf(d.function, name))
	}
	anyFunction := functionNamed(`([A-Za-z_$][\w$]*)`)
	var funcs []decl
	for _, f := range paths {
		for _, m := range anyFunction.FindAllStringSubmatch(files[f], -1) {
			if len(users(files, paths, f, m[1])) >= 1 {
				funcs = append(funcs, decl{f, m[1]})
			}
		}
	}
	rng.Shuffle(len(funcs), func(i, j int) { funcs[i], funcs[j] = funcs[j], funcs[i] })
	for _, fn := range funcs[:min(3, len(funcs))] {
		src := files[fn.file]
		at := functionNamed(regexp.QuoteMeta(fn.name)).FindStringIndex(src)
		changed := src[:at[1]] + d.extraParam + src[at[1]:]
		add(fmt.Sprintf("required parameter added to %s (%s)", fn.name, fn.file), map[string]string{fn.file: changed})
	}
	out = append(out, cutoffMutations(d, files, paths, rng)...)
	return out
}

// cutoffMutations are the cases the early cut-off decides: a body-only
// edit to a function other files use (its importers need no check), and
// a return rewritten in a function whose return type is inferred (its
// users must be checked, and theirs when the type flows on).
func cutoffMutations(d dialect, files map[string]string, paths []string, rng *rand.Rand) []mutation {
	if d.annotated == nil {
		return nil
	}
	var out []mutation
	type site struct {
		file string
		at   []int
	}
	var bodies, inferred []site
	for _, f := range paths {
		for _, at := range d.annotated.FindAllStringIndex(files[f], -1) {
			bodies = append(bodies, site{f, at})
		}
		for _, at := range d.inferred.FindAllStringSubmatchIndex(files[f], -1) {
			if len(users(files, paths, f, files[f][at[2]:at[3]])) >= 1 {
				inferred = append(inferred, site{f, at})
			}
		}
	}
	rng.Shuffle(len(bodies), func(i, j int) { bodies[i], bodies[j] = bodies[j], bodies[i] })
	for _, b := range bodies[:min(3, len(bodies))] {
		src := files[b.file]
		out = append(out, mutation{name: fmt.Sprintf("body-only edit in %s (line %d)", b.file, strings.Count(src[:b.at[1]], "\n")),
			changes: map[string]string{b.file: src[:b.at[1]] + d.bodyLine + src[b.at[1]:]}})
	}
	rng.Shuffle(len(inferred), func(i, j int) { inferred[i], inferred[j] = inferred[j], inferred[i] })
	n := 0
	for _, fn := range inferred {
		if n == 3 {
			break
		}
		src := files[fn.file]
		body := src[fn.at[1]:]
		// The function's first return at one level of indentation.
		loc := regexp.MustCompile(`(?m)^(  |    )return\b.*$`).FindStringIndex(body)
		if loc == nil || strings.Contains(body[:loc[0]], "\n}") || strings.Contains(body[:loc[0]], "\ndef ") {
			continue
		}
		line := body[loc[0]:loc[1]]
		changed := src[:fn.at[1]] + body[:loc[0]] + d.retype(line) + body[loc[1]:]
		out = append(out, mutation{name: fmt.Sprintf("inferred return type of %s changed (%s)", src[fn.at[2]:fn.at[3]], fn.file),
			changes: map[string]string{fn.file: changed}})
		n++
	}
	return out
}

// users returns the files other than decl that mention name as a word.
func users(files map[string]string, paths []string, decl, name string) []string {
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
	var out []string
	for _, f := range paths {
		if f != decl && word.MatchString(files[f]) {
			out = append(out, f)
		}
	}
	return out
}
