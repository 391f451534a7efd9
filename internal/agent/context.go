package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/anvil-dev/anvil/internal/workspace"
)

// Limits on what is attached to a request.
const (
	maxRulesBytes      = 16 << 10
	maxAttachmentBytes = 64 << 10
)

// ProjectContext is what every agent is told about the project besides the
// request: its rules files and the files the request @-mentions.
type ProjectContext struct {
	Rules       []Attachment // .anvil/rules.md, AGENTS.md
	Attachments []Attachment // @path mentions
	Problems    []string     // mentions that could not be attached, and why
	TestCommand string
}

// Attachment is a file's content given to the agents.
type Attachment struct {
	Path    string
	Content string
	Cut     bool
}

var mentionRE = regexp.MustCompile(`(?:^|\s)@((?:[\w.-]+/)*[\w.-]+)`)

// LoadContext reads the rules files and resolves @path mentions in request,
// inside the workspace only.
func LoadContext(root *workspace.Root, request, testCommand string) ProjectContext {
	pc := ProjectContext{TestCommand: testCommand}
	for _, name := range []string{".anvil/rules.md", "AGENTS.md"} {
		if a, ok := attach(root, name, maxRulesBytes); ok {
			pc.Rules = append(pc.Rules, a)
		}
	}
	seen := map[string]bool{}
	for _, m := range mentionRE.FindAllStringSubmatch(request, -1) {
		p := strings.TrimRight(m[1], ".,;:")
		if seen[p] {
			continue
		}
		seen[p] = true
		rp, err := root.Resolve(p)
		if err != nil {
			pc.Problems = append(pc.Problems, fmt.Sprintf("@%s: %v", p, err))
			continue
		}
		info, err := os.Stat(rp.Abs)
		switch {
		case err != nil:
			pc.Problems = append(pc.Problems, fmt.Sprintf("@%s: no such file", p))
		case info.IsDir():
			pc.Problems = append(pc.Problems, fmt.Sprintf("@%s: a directory; mention files", p))
		default:
			if a, ok := attach(root, rp.Rel, maxAttachmentBytes); ok {
				pc.Attachments = append(pc.Attachments, a)
			} else {
				pc.Problems = append(pc.Problems, fmt.Sprintf("@%s: not a text file", p))
			}
		}
	}
	return pc
}

func attach(root *workspace.Root, rel string, limit int) (Attachment, bool) {
	rp, err := root.Resolve(rel)
	if err != nil {
		return Attachment{}, false
	}
	data, err := os.ReadFile(rp.Abs)
	if err != nil || workspace.IsBinary(data) {
		return Attachment{}, false
	}
	a := Attachment{Path: filepath.ToSlash(rp.Rel)}
	if len(data) > limit {
		data, a.Cut = data[:limit], true
	}
	a.Content = string(data)
	return a, true
}

// Format renders the context for a system prompt.
func (pc ProjectContext) Format() string {
	var b strings.Builder
	for _, r := range pc.Rules {
		fmt.Fprintf(&b, "Project rules from %s (follow them):\n%s\n", r.Path, r.Content)
	}
	if pc.TestCommand != "" {
		fmt.Fprintf(&b, "The project's tests run with: %s\n", pc.TestCommand)
	}
	for _, a := range pc.Attachments {
		cut := ""
		if a.Cut {
			cut = " (cut; read the rest with read_file)"
		}
		fmt.Fprintf(&b, "\nThe user attached %s%s:\n```\n%s\n```\n", a.Path, cut, a.Content)
	}
	return b.String()
}
