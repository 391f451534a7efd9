package shadow

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/anvil-dev/anvil/internal/batch"
	"github.com/anvil-dev/anvil/internal/testfs"
)

// The cut-off's mutation test: on real code, edits of exactly the kinds
// the cut-off decides on (body-only and comment-only edits, edits inside
// constructors, JSDoc retyped in JavaScript, type comments, assignments
// through `global`, attributes assigned in methods), each held to the batch
// checker: every file in which the batch checker finds a new error must
// be a changed file or a dependant the import graph's cut-off finds. One
// miss fails the test. The gate's servers are not involved: what is held
// here is the choice of files, which every verdict rests on.

// cutoffProject is a real project for the mutation test.
type cutoffCorpus struct {
	name, ext string
	setup     func(t *testing.T, dir string)
	batch     func(ctx context.Context, dir string) ([]string, error)
}

func cutoffCorpora(t *testing.T) []cutoffCorpus {
	var out []cutoffCorpus
	for _, p := range realProjects(t) {
		if p.language == "go" {
			continue // gopls reports dependants itself: no cut-off of Anvil's
		}
		out = append(out, cutoffCorpus{name: p.name, ext: p.ext, setup: p.setup, batch: p.batch})
	}
	return append(out, cutoffCorpus{
		// preact 10 ships its JavaScript sources, typed by JSDoc that
		// imports types from .d.ts files beside them (`import('./internal')`):
		// checked by tsc with checkJs.
		name: "preact@10.27.2 (JavaScript, checkJs)", ext: ".js",
		setup: func(t *testing.T, dir string) {
			pkg := testCorpus().NPMPackage(t, "preact@10.27.2")
			for _, sub := range []string{"src", "hooks/src", "compat/src"} {
				copyTree(t, filepath.Join(pkg, sub), filepath.Join(dir, sub), "")
			}
			testfs.Write(t, dir, map[string]string{
				"package.json": `{"name": "preact-corpus", "private": true, "type": "module"}`,
				"tsconfig.json": `{"compilerOptions": {"allowJs": true, "checkJs": true, "noEmit": true, "target": "es2020",
					"module": "esnext", "moduleResolution": "bundler", "lib": ["es2020", "dom"], "skipLibCheck": true,
					"jsx": "react-jsx", "jsxImportSource": "preact"}, "include": ["src", "hooks/src", "compat/src"]}`,
			})
		},
		batch: tscErrors(toolsBinary(t, "tsc"), false),
	})
}

func TestCutoffMutationsHeldToBatchChecker(t *testing.T) {
	if testing.Short() {
		t.Skip("the mutation test checks real projects with their batch checkers")
	}
	decl := declarationEmitter(t)
	var table strings.Builder
	fmt.Fprintf(&table, "\n| project | mutations | breaking another file | files checked (mean) | missed |\n|---|---|---|---|---|\n")
	for _, p := range cutoffCorpora(t) {
		t.Run(p.name, func(t *testing.T) {
			gateDir, batchDir := t.TempDir(), t.TempDir()
			p.setup(t, gateDir)
			p.setup(t, batchDir)
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
			defer cancel()
			before, err := p.batch(ctx, batchDir)
			if err != nil {
				t.Fatalf("batch checker on the unchanged tree: %v", err)
			}
			muts := cutoffEdits(gateDir, p.ext)
			if len(muts) < 6 {
				t.Fatalf("only %d mutations found", len(muts))
			}
			breaking, checkedSum, missed := 0, 0, 0
			for _, m := range muts {
				restore := applyChanges(t, batchDir, m.changes)
				after, err := p.batch(ctx, batchDir)
				restore()
				if err != nil {
					t.Fatalf("batch checker after %s: %v", m.name, err)
				}
				checked := cutoffChecked(t, ctx, gateDir, m.changes, decl)
				checkedSum += len(checked)
				broke := false
				for _, e := range batch.NewErrors(before, after) {
					file, _, _ := strings.Cut(e, ": ")
					file = filepath.ToSlash(file)
					if _, changed := m.changes[file]; !changed {
						broke = true
					}
					if !checked[file] {
						missed++
						t.Errorf("%s: the batch checker finds a new error in %s, which the cut-off leaves unchecked: %s", m.name, file, e)
						break
					}
				}
				if broke {
					breaking++
				}
			}
			fmt.Fprintf(&table, "| %s | %d | %d | %.1f | %d |\n", p.name, len(muts), breaking, float64(checkedSum)/float64(len(muts)), missed)
		})
	}
	t.Log(table.String())
}

// cutoffEdits returns the mutation test's edits for the sources under dir,
// picked with a fixed seed.
func cutoffEdits(dir, ext string) []mutation {
	files := map[string]string{}
	var paths []string
	_ = filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Ext(p) != ext || strings.HasSuffix(p, ".d.ts") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		paths = append(paths, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(paths)
	rng := rand.New(rand.NewPCG(0xc0ff, uint64(len(paths))))
	var out []mutation
	for _, k := range editKinds[ext] {
		var sites []editSite
		for _, f := range paths {
			for _, loc := range k.site.FindAllStringSubmatchIndex(files[f], -1) {
				sites = append(sites, editSite{f, loc})
			}
		}
		rng.Shuffle(len(sites), func(i, j int) { sites[i], sites[j] = sites[j], sites[i] })
		n := 0
		for _, s := range sites {
			if n == k.count {
				break
			}
			src := files[s.file]
			changed := k.edit(src, s.loc)
			if changed == src {
				continue
			}
			line := strings.Count(src[:s.loc[0]], "\n") + 1
			out = append(out, mutation{name: fmt.Sprintf("%s in %s:%d", k.name, s.file, line), changes: map[string]string{s.file: changed}})
			n++
		}
	}
	return out
}

type editSite struct {
	file string
	loc  []int // a regexp submatch index
}

// editKind is one kind of edit: where it applies (a regexp whose match
// the edit rewrites), how many sites to pick, and the rewrite.
type editKind struct {
	name  string
	site  *regexp.Regexp
	count int
	edit  func(src string, loc []int) string
}

// insertAt returns an edit that inserts text where the match ends.
func insertAt(text string) func(string, []int) string {
	return func(src string, loc []int) string { return src[:loc[1]] + text + src[loc[1]:] }
}

// replaceGroup returns an edit that replaces the match's first group.
func replaceGroup(with string) func(string, []int) string {
	return func(src string, loc []int) string { return src[:loc[2]] + with + src[loc[3]:] }
}

// wrapGroup returns an edit that puts the match's first group between
// prefix and suffix.
func wrapGroup(prefix, suffix string) func(string, []int) string {
	return func(src string, loc []int) string {
		return src[:loc[2]] + prefix + src[loc[2]:loc[3]] + suffix + src[loc[3]:]
	}
}

var editKinds = map[string][]editKind{
	".ts": {
		{"body-only edit", regexp.MustCompile(`(?m)^export (?:async )?function [A-Za-z_$][\w$]*(?:<[^>(]*>)?\([^)]*\): [^{\n]+\{\n`), 3,
			insertAt("  void \"anvil corpus: a body-only edit\";\n")},
		{"comment in a body", regexp.MustCompile(`(?m)^  (?:public |private |protected )?(?:static )?[a-zA-Z_$][\w$]*\([^)]*\)[^{\n]*\{\n`), 2,
			insertAt("    // anvil corpus: a comment in a body\n")},
		{"JSDoc on a declaration", regexp.MustCompile(`(?m)^export (?:function|class|const|interface|type) `), 2,
			func(src string, loc []int) string {
				return src[:loc[0]] + "/** @returns {string} anvil corpus: JSDoc in TypeScript is no type */\n" + src[loc[0]:]
			}},
		{"constructor assignment retyped", regexp.MustCompile(`(?m)constructor\([^)]*\)[^{\n]*\{\n(?:[^\n]*\n){0,6}?\s+this\.[A-Za-z_$][\w$]* = ([^;\n]+);`), 3,
			replaceGroup(`"anvil" as any as string`)},
		{"method's inferred return type changed", regexp.MustCompile(`(?m)^  (?:public )?[a-zA-Z_$][\w$]*\([^)]*\) \{\n\s+return ([^;\n]+);`), 2,
			wrapGroup("[", "] as const")},
		{"function's inferred return type changed", regexp.MustCompile(`(?m)^export function [A-Za-z_$][\w$]*(?:<[^>(]*>)?\([^)]*\) \{\n(?:[^\n]*\n){0,8}?  return ([^;\n]+);`), 3,
			wrapGroup("[", "] as const")},
	},
	".js": {
		{"JSDoc @returns retyped", regexp.MustCompile(`@returns? \{([^}\n]+)\}`), 3, replaceGroup("string")},
		{"JSDoc @param retyped", regexp.MustCompile(`@param \{([^}\n]+)\}`), 3, replaceGroup("string")},
		{"JSDoc @type retyped", regexp.MustCompile(`@type \{([^}\n]+)\}`), 2, replaceGroup("string")},
		{"comment in a body", regexp.MustCompile(`(?m)^export function [A-Za-z_$][\w$]*\([^)]*\) \{\n`), 2,
			insertAt("\t// anvil corpus: a comment in a body\n")},
		{"property assignment retyped", regexp.MustCompile(`(?m)^\s+this\.[A-Za-z_$][\w$]* = ([^;\n]+);`), 2, replaceGroup(`"anvil"`)},
	},
	".py": {
		{"body-only edit", regexp.MustCompile(`(?m)^def [A-Za-z]\w*\([^)]*\)(?: -> [^:\n]+)?:\n`), 3, insertAt("    _anvil_corpus_unused = 0\n")},
		{"body-only edit in a method", regexp.MustCompile(`(?m)^    def [A-Za-z]\w*\([^)]*\)(?: -> [^:\n]+)?:\n`), 2, insertAt("        _anvil_corpus_unused = 0\n")},
		{"comment in a body", regexp.MustCompile(`(?m)^    def [A-Za-z]\w*\([^)]*\)(?: -> [^:\n]+)?:\n`), 2, insertAt("        # anvil corpus: a comment in a body\n")},
		{"attribute assigned in a method retyped", regexp.MustCompile(`(?m)^        self\.[A-Za-z_]\w* = ([^\n#]+?)\s*$`), 3, replaceGroup(`"anvil"`)},
		{"module variable assigned through global", regexp.MustCompile(`(?m)\A(?:.*\n)*?^([A-Za-z_]\w*) = [^\n]+\n(?:.*\n)*?^def [A-Za-z]\w*\([^)]*\)(?: -> [^:\n]+)?:\n`), 3,
			func(src string, loc []int) string {
				name := src[loc[2]:loc[3]]
				return src[:loc[1]] + "    global " + name + "\n    " + name + " = \"anvil\"\n" + src[loc[1]:]
			}},
		{"function's inferred return type changed", regexp.MustCompile(`(?m)^def [A-Za-z]\w*\([^)]*\):\n(?:[^\n]*\n){0,8}?    return ([^\n]+)$`), 3,
			wrapGroup("(", ",)")},
		{"type comment retyped", regexp.MustCompile(`#\s*type:\s*([^\n]+)`), 2,
			func(src string, loc []int) string {
				typ := src[loc[2]:loc[3]]
				if i := strings.Index(typ, "->"); i >= 0 {
					return src[:loc[2]] + typ[:i] + "-> str" + src[loc[3]:]
				}
				if strings.HasPrefix(typ, "ignore") {
					return src
				}
				return src[:loc[2]] + "str" + src[loc[3]:]
			}},
	},
}
