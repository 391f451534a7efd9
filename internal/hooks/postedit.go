package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/workspace"
)

// hasPostEdit reports whether Anvil installs a post-tool hook for client
// c: the clients whose edit tools match loosely (Gemini CLI's replace,
// OpenCode's edit), where an edit's result is known only once written.
func hasPostEdit(c Client) bool { return c == Gemini || c == OpenCode }

// postEditInstalled reports whether the client's hooks for the workspace
// dir (its own or the user's) include the post-edit hook: hooks an older
// Anvil installed do not, and then only the end of the turn checks.
func (g *Gate) postEditInstalled(dir string) bool {
	if !hasPostEdit(g.Client) || g.Getenv == nil {
		return false
	}
	for _, s := range []Scope{Project, User} {
		if Inspect(g.Client, s, dir, g.Getenv).Has(VerbPostEdit) {
			return true
		}
	}
	return false
}

// PostEdit checks, after the client wrote them, the files of the
// session's edits that the pre-edit hook could not compute (see
// pending.go): the way back from each file as written to its content
// before the edit resolves exactly the errors the edit brought in, in the
// file and in its importers. They go to the model with the tool's result
// (the file is written: a post-tool hook cannot refuse it); the end of
// the turn refuses them if they remain. With nothing kept, it answers at
// once.
func (g *Gate) PostEdit(ctx context.Context, in Input) Answer {
	if g.Snapshots == nil || in.SessionID == "" {
		return Answer{}
	}
	dir, err := g.ProjectDir(in)
	if err != nil {
		return Answer{}
	}
	root, err := workspace.New(dir)
	if err != nil {
		return Answer{}
	}
	abs, ok := editedFile(in.ToolInput, cmpOr(in.Cwd, dir))
	if !ok {
		return Answer{}
	}
	rel, err := root.Rel(abs)
	if err != nil {
		return Answer{}
	}
	hash, kept, err := g.Snapshots.TakeBefore(root, in.SessionID, rel)
	switch {
	case err != nil:
		return allow("reading what %s held before the edit failed (%v): the edit is not checked until the end of the turn", rel, err)
	case !kept:
		return Answer{} // an edit the pre-edit hook checked before it was written
	}
	specs, lost := g.wayBackTo(root, map[string]string{rel: hash})
	var notes []string
	if len(lost) > 0 {
		notes = append(notes, fmt.Sprintf("what %s held before the edit is lost: not checked until the end of the turn", joinFiles(lost)))
	}
	if len(specs) == 0 {
		return Answer{}.withNote(strings.Join(notes, "; "))
	}
	svc, closeSvc, err := g.Open(ctx, dir)
	if err != nil {
		return allow("the gate could not start (%v): the edit is not checked until the end of the turn", err)
	}
	defer closeSvc()
	out, cut, err := checkWithin(ctx, svc, specs, g.editOptions(false), g.importersWait(), "what the edit wrote")
	switch {
	case err != nil:
		return allow("the edit as written was not verified (%v); the end of the turn checks it", err)
	case out.Result == nil:
		return allow("the edit as written was not verified (the check gave no verdict); the end of the turn checks it")
	}
	switch {
	case cut != "":
		notes = append(notes, cut+"; the end of the turn checks them")
	case out.Result.DependantsLeft:
		notes = append(notes, g.leftNote())
	}
	for _, u := range out.Result.Unverified {
		notes = append(notes, fmt.Sprintf("%s not verified (%s)", u.Path, u.Reason))
	}
	introduced := out.Result.Resolved
	var further string
	for _, n := range out.Result.Notes {
		if strings.HasPrefix(n, "a staging check:") {
			further = "; the end of the turn checks the files that use them further away"
		}
	}
	if len(introduced) == 0 {
		return Answer{}.withNote(strings.Join(notes, "; "))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Anvil: the edit was matched loosely, so Anvil checked the file as written: it leaves %d new %s in %s:\n",
		len(introduced), plural(len(introduced), "error", "errors"), joinFiles(filesOf(introduced)))
	listDiags(&b, introduced)
	b.WriteString("Fix them: the end of the turn is refused while they remain" + further + ".")
	return Answer{Context: b.String()}.withNote(strings.Join(notes, "; "))
}

// editedFile returns the file (absolute) an edit tool's input names:
// Gemini CLI's file_path, OpenCode's filePath; cwd resolves a relative
// one.
func editedFile(input json.RawMessage, cwd string) (string, bool) {
	var in struct {
		FilePath  string `json:"file_path"`
		FilePath2 string `json:"filePath"`
	}
	if json.Unmarshal(input, &in) != nil {
		return "", false
	}
	p := cmpOr(in.FilePath, in.FilePath2)
	if p == "" || strings.ContainsRune(p, 0) {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p), true
}

// wayBackTo returns the change set that takes each file of before
// (relative path → content hash, "" for none) back to it from the disk,
// for the files that differ; lost are those whose content is gone.
func (g *Gate) wayBackTo(root *workspace.Root, before map[string]string) (specs []changeset.Spec, lost []string) {
	for _, rel := range slices.Sorted(maps.Keys(before)) {
		data, exists, err := readFile(root.Abs(rel))
		if err != nil {
			lost = append(lost, rel)
			continue
		}
		cur := ""
		if exists {
			cur = changeset.Hash(data)
		}
		// A file whose hash is still before's: the client did not write
		// it (its own match failed).
		spec, ok := g.backTo(rel, before[rel], cur)
		switch {
		case !ok:
			lost = append(lost, rel)
		case spec != nil:
			specs = append(specs, *spec)
		}
	}
	return specs, lost
}
