package gatefuzz

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// A regression case is a txtar archive: its comment says what the trial
// was and what each side said, as "key: value" lines; its files are the
// project (project/PATH), the edit's new contents (edit/PATH) and its
// deletions (delete/PATH, empty); a "path:" line names the front end it
// was found through and is replayed through, and a "pin:" line the
// TypeScript version its workspace pinned. A case whose comment has an "open:" line
// is a false clean still open, with its cause: the replaying test prints
// it and passes; without one, a false clean fails.

// Case is a regression case.
type Case struct {
	Trial *Trial
	// Class is what the fuzzer found; Gate and Truth what each side said.
	Class Class
	Gate  string
	Truth []string
	// Open is the cause of a false clean not fixed yet ("" when it is
	// expected to agree).
	Open string
	// Note says what else a reader should know (that the case reproduces
	// only beside other projects).
	Note string
	// Path is the front end the case was found through ("" or "local":
	// in the process; "daemon"; "hooks": a session's hooks, where the end
	// of the turn checks the way back), and is replayed through.
	Path string
	// Pin is the TypeScript version the campaign's workspace pinned (not
	// installed: TS.Pin), "" for none. A pinned case is replayed as it
	// was found: with the pin, through the hooks, each edit rehearsed.
	Pin string
}

// Format writes the case as a txtar archive.
func (c *Case) Format() []byte {
	var comment strings.Builder
	fmt.Fprintf(&comment, "lang: %s\nseed: %d\nindex: %d\nclass: %s\ntags: %s\ngate: %s\n",
		c.Trial.Lang, c.Trial.Seed, c.Trial.Index, c.Class, strings.Join(c.Trial.Tags, " "), c.Gate)
	for _, e := range c.Truth {
		fmt.Fprintf(&comment, "checker: %s\n", strings.ReplaceAll(e, "\n", " "))
	}
	if c.Open != "" {
		fmt.Fprintf(&comment, "open: %s\n", c.Open)
	}
	if c.Note != "" {
		fmt.Fprintf(&comment, "note: %s\n", c.Note)
	}
	if c.Path != "" && c.Path != "local" {
		fmt.Fprintf(&comment, "path: %s\n", c.Path)
	}
	if c.Pin != "" {
		fmt.Fprintf(&comment, "pin: %s\n", c.Pin)
	}
	a := &txtar.Archive{Comment: []byte(comment.String())}
	for _, p := range sortedKeys(c.Trial.Project) {
		a.Files = append(a.Files, txtar.File{Name: "project/" + p, Data: []byte(c.Trial.Project[p])})
	}
	for _, p := range c.Trial.Edit.Paths() {
		if e := c.Trial.Edit[p]; e == nil {
			a.Files = append(a.Files, txtar.File{Name: "delete/" + p})
		} else {
			a.Files = append(a.Files, txtar.File{Name: "edit/" + p, Data: []byte(*e)})
		}
	}
	return txtar.Format(a)
}

// ParseCase reads a case written by [Case.Format].
func ParseCase(data []byte) (*Case, error) {
	a := txtar.Parse(data)
	c := &Case{Trial: &Trial{Name: "t000", Project: Files{}, Edit: Edit{}}}
	for _, line := range strings.Split(string(a.Comment), "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		switch k {
		case "lang":
			c.Trial.Lang = v
		case "seed":
			c.Trial.Seed, _ = strconv.ParseUint(v, 10, 64)
		case "index":
			c.Trial.Index, _ = strconv.Atoi(v)
		case "class":
			c.Class = Class(v)
		case "tags":
			c.Trial.Tags = strings.Fields(v)
		case "gate":
			c.Gate = v
		case "checker":
			c.Truth = append(c.Truth, v)
		case "open":
			c.Open = v
		case "note":
			c.Note = v
		case "path":
			c.Path = v
		case "pin":
			c.Pin = v
		}
	}
	if c.Trial.Lang == "" {
		return nil, fmt.Errorf("a case without lang")
	}
	for _, f := range a.Files {
		kind, p, ok := strings.Cut(f.Name, "/")
		if !ok || p == "" || filepath.IsAbs(p) || slices.Contains(strings.Split(p, "/"), "..") {
			return nil, fmt.Errorf("case file %q: not project/, edit/ or delete/ and a relative path", f.Name)
		}
		switch kind {
		case "project":
			c.Trial.Project[p] = string(f.Data)
		case "edit":
			c.Trial.Edit[p] = ptr(string(f.Data))
		case "delete":
			c.Trial.Edit[p] = nil
		default:
			return nil, fmt.Errorf("case file %q: not project/, edit/ or delete/", f.Name)
		}
	}
	if len(c.Trial.Edit) == 0 {
		return nil, fmt.Errorf("a case without an edit")
	}
	return c, nil
}

// WriteCase writes c under dir, named by its language, class and trial.
func WriteCase(dir string, c *Case) (string, error) {
	short := strings.ReplaceAll(string(c.Class), " ", "-")
	p := filepath.Join(dir, fmt.Sprintf("%s-%s-s%d-i%d.txtar", c.Trial.Lang, short, c.Trial.Seed, c.Trial.Index))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return p, os.WriteFile(p, c.Format(), 0o644)
}
