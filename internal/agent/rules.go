package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// Rules live where the code is: an AGENTS.md or .anvil/rules.md in a
// subdirectory applies to the files under it. The root's come with the
// system prompt (LoadContext); a subdirectory's come with the first tool
// result that reads or edits a file under it, so the agent sees them when
// they matter and not before.

// rulesNames are the rules files of a directory, in the order shown.
var rulesNames = []string{".anvil/rules.md", "AGENTS.md"}

// DirRules finds the subdirectories' rules files for the paths an agent
// touches.
type DirRules struct {
	Root *workspace.Root
}

// forPath returns the rules files (workspace-relative) that apply to rel
// and are not in shown, nearest directory last; the root's are left out.
func (d *DirRules) forPath(rel string, shown map[string]bool) []Attachment {
	var dirs []string
	for dir := path.Dir(path.Clean(rel)); dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
		dirs = append([]string{dir}, dirs...)
	}
	var out []Attachment
	for _, dir := range dirs {
		for _, name := range rulesNames {
			p := dir + "/" + name
			if shown[p] {
				continue
			}
			if a, ok := attach(d.Root, p, maxRulesBytes); ok {
				shown[p] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// note returns what to add to the result of a tool call with input: the
// rules of the directories of the path it names, not shown yet.
func (d *DirRules) note(input json.RawMessage, shown map[string]bool) string {
	var args struct {
		Path string `json:"path"`
	}
	if d == nil || json.Unmarshal(input, &args) != nil || args.Path == "" {
		return ""
	}
	rules := d.forPath(args.Path, shown)
	if len(rules) == 0 {
		return ""
	}
	var b strings.Builder
	for _, r := range rules {
		fmt.Fprintf(&b, "\n\nRules for the files under %s/ (from %s; follow them there):\n%s", rulesDir(r.Path), r.Path, r.Content)
	}
	return b.String()
}

func rulesDir(p string) string {
	dir := path.Dir(p)
	if path.Base(dir) == ".anvil" {
		dir = path.Dir(dir)
	}
	return dir
}

// RulesFile is a rules file and where it applies, for /memory.
type RulesFile struct {
	Path    string // workspace-relative, or absolute for the user's own
	Applies string // "everywhere", or "files under DIR/"
	Bytes   int
}

// FindRules lists every rules file that applies in the workspace: the
// user's own (userRules, when it exists), the root's, and every
// subdirectory's.
func FindRules(ctx context.Context, root *workspace.Root, userRules string) []RulesFile {
	var out []RulesFile
	if userRules != "" {
		if data, err := readSmall(userRules); err == nil {
			out = append(out, RulesFile{Path: userRules, Applies: "everywhere (yours)", Bytes: len(data)})
		}
	}
	for _, name := range rulesNames {
		if a, ok := attach(root, name, maxRulesBytes); ok {
			out = append(out, RulesFile{Path: a.Path, Applies: "the whole workspace", Bytes: len(a.Content)})
		}
	}
	start, err := root.Resolve(".")
	if err != nil {
		return out
	}
	_ = root.Walk(ctx, start, workspace.WalkOptions{}, func(e workspace.Entry) error {
		if e.IsDir() || !strings.Contains(e.Rel, "/") {
			return nil
		}
		for _, name := range rulesNames {
			if strings.HasSuffix(e.Rel, "/"+name) {
				if a, ok := attach(root, e.Rel, maxRulesBytes); ok {
					out = append(out, RulesFile{Path: e.Rel, Applies: "files under " + rulesDir(e.Rel) + "/", Bytes: len(a.Content)})
				}
			}
		}
		return nil
	})
	return out
}
