package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/anvil-dev/anvil/internal/changeset"
	"github.com/anvil-dev/anvil/internal/tools"
)

// scopedRead is read_file limited to the plan's files: the path is resolved
// (symlinks included) and checked against the set before the tool runs, so
// the Executor's context holds only what it was told to work on. Staged
// content is what it reads for a staged file.
type scopedRead struct {
	inner   tools.Tool
	staging *Staging
}

func (t *scopedRead) Name() string { return t.inner.Name() }
func (t *scopedRead) Description() string {
	return t.inner.Description() + "\n\nAs the Executor you can read only the files the plan names; a staged file reads as staged."
}
func (t *scopedRead) InputSchema() json.RawMessage { return t.inner.InputSchema() }

func (t *scopedRead) Call(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var p tools.ReadFileParams
	if err := json.Unmarshal(args, &p); err != nil || p.Path == "" {
		return t.inner.Call(ctx, args) // let the tool explain the arguments
	}
	rp, err := t.staging.root.Resolve(p.Path)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	if !t.staging.Allowed(rp.Rel) {
		return tools.Errorf("%s is outside the plan: the Executor may read only %s", rp.Rel, strings.Join(slices.Sorted(maps.Keys(t.staging.allowed)), ", ")), nil
	}
	if content, deleted, ok := t.staging.Staged(rp.Rel); ok {
		if deleted {
			return tools.Errorf("%s is staged for deletion", rp.Rel), nil
		}
		return tools.ReadText(ctx, rp.Rel+" (staged)", bytes.NewReader(content), p)
	}
	if _, err := os.Stat(rp.Abs); err != nil {
		return tools.Errorf("%s does not exist yet; create it with write_file", rp.Rel), nil
	}
	return t.inner.Call(ctx, args)
}

// EditFileParams are the arguments of edit_file.
type EditFileParams struct {
	Path       string `json:"path" jsonschema:"file to edit, one of the plan's files"`
	OldString  string `json:"old_string" jsonschema:"exact text to replace, with enough context to be unique"`
	NewString  string `json:"new_string" jsonschema:"replacement text"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence instead of requiring exactly one"`
}

type editFile struct{ staging *Staging }

func (t *editFile) Name() string { return "edit_file" }
func (t *editFile) Description() string {
	return "Replace an exact string in one of the plan's files and stage the result (nothing is written until commit). old_string must match exactly, whitespace included, and be unique unless replace_all is set; on a miss the answer shows the closest lines. The answer reports the change set's validation state."
}

func (t *editFile) Run(ctx context.Context, p EditFileParams) (tools.Result, error) {
	if p.OldString == "" {
		return tools.Errorf("old_string is empty; to write a whole file use write_file"), nil
	}
	if p.OldString == p.NewString {
		return tools.Errorf("old_string and new_string are the same; nothing to change"), nil
	}
	rel, content, res := t.staging.current(p.Path)
	if res != nil {
		return *res, nil
	}
	text := string(content)
	n := strings.Count(text, p.OldString)
	switch {
	case n == 0:
		return tools.Errorf("old_string was not found in %s.%s", rel, closestLines(text, p.OldString)), nil
	case n > 1 && !p.ReplaceAll:
		return tools.Errorf("old_string appears %d times in %s (lines %s); add surrounding lines to make it unique, or set replace_all", n, rel, occurrenceLines(text, p.OldString)), nil
	}
	updated := strings.Replace(text, p.OldString, p.NewString, map[bool]int{true: -1, false: 1}[p.ReplaceAll])
	state, err := t.staging.Stage(ctx, []changeset.Spec{{Path: rel, Content: &updated}})
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	return tools.Result{Output: fmt.Sprintf("replaced %d occurrence(s) in %s.\n%s", n, rel, state)}, nil
}

// resolveWritable resolves path and checks it is one of the plan's files,
// or returns the tool error to answer with.
func (s *Staging) resolveWritable(path string) (string, *tools.Result) {
	rp, err := s.root.Resolve(path)
	if err != nil {
		r := tools.Errorf("%v", err)
		return "", &r
	}
	if !s.Allowed(rp.Rel) {
		r := tools.Errorf("%s is not among the plan's files; the Executor may change only %s", rp.Rel, strings.Join(slices.Sorted(maps.Keys(s.allowed)), ", "))
		return "", &r
	}
	return rp.Rel, nil
}

// current returns the staged or on-disk content of a plan file, or the tool
// error to answer with.
func (s *Staging) current(path string) (string, []byte, *tools.Result) {
	rel, res := s.resolveWritable(path)
	if res != nil {
		return "", nil, res
	}
	if content, deleted, ok := s.Staged(rel); ok {
		if deleted {
			r := tools.Errorf("%s is staged for deletion", rel)
			return "", nil, &r
		}
		return rel, content, nil
	}
	data, err := os.ReadFile(s.root.Abs(rel))
	if err != nil {
		r := tools.Errorf("%s cannot be read (%v); new files are created with write_file", rel, err)
		return "", nil, &r
	}
	return rel, data, nil
}

// WriteFileParams are the arguments of write_file.
type WriteFileParams struct {
	Path    string `json:"path" jsonschema:"file to write, one of the plan's files"`
	Content string `json:"content" jsonschema:"the complete new content of the file"`
}

type writeFile struct{ staging *Staging }

func (t *writeFile) Name() string { return "write_file" }
func (t *writeFile) Description() string {
	return "Stage the complete content of one of the plan's files: a new file, or a rewrite of an existing one (prefer edit_file for small changes). Nothing is written until commit. The answer reports the change set's validation state."
}

func (t *writeFile) Run(ctx context.Context, p WriteFileParams) (tools.Result, error) {
	rel, res := t.staging.resolveWritable(p.Path)
	if res != nil {
		return *res, nil
	}
	state, err := t.staging.Stage(ctx, []changeset.Spec{{Path: rel, Content: &p.Content}})
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	return tools.Result{Output: state}, nil
}

// closestLines describes where old_string nearly matches: the lines most
// like its first line, and whether whitespace is all that differs.
func closestLines(text, old string) string {
	first := ""
	for _, l := range strings.Split(old, "\n") {
		if strings.TrimSpace(l) != "" {
			first = strings.TrimSpace(l)
			break
		}
	}
	if first == "" {
		return ""
	}
	if collapse(text) != "" && strings.Contains(collapse(text), collapse(old)) {
		return " It matches if whitespace is ignored: copy the indentation and line breaks exactly from read_file."
	}
	type cand struct {
		line  int
		text  string
		score int
	}
	var cands []cand
	for i, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		cands = append(cands, cand{i + 1, l, distance(first, t)})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score < cands[j].score })
	var b strings.Builder
	b.WriteString(" The closest lines to its first line are:\n")
	for _, c := range cands[:min(3, len(cands))] {
		fmt.Fprintf(&b, "%6d\t%s\n", c.line, c.text)
	}
	b.WriteString("Read the file again and copy old_string exactly.")
	return b.String()
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func occurrenceLines(text, sub string) string {
	var lines []string
	off := 0
	for {
		i := strings.Index(text[off:], sub)
		if i < 0 || len(lines) == 10 {
			break
		}
		lines = append(lines, fmt.Sprint(strings.Count(text[:off+i], "\n")+1))
		off += i + len(sub)
	}
	return strings.Join(lines, ", ")
}

// distance is the Levenshtein distance between a and b, on runes, with
// long lines cut so a minified file cannot make it slow.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 300 {
		ra = ra[:300]
	}
	if len(rb) > 300 {
		rb = rb[:300]
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
