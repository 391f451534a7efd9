package agent

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/anvil-dev/anvil/internal/llm"
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
	Images      []Image      // @path mentions of pictures (a screenshot)
	Problems    []string     // mentions that could not be attached, and why
	TestCommand string
}

// Image is a picture the request mentions, for models that take images.
type Image struct {
	Path      string
	MediaType string
	Data      []byte
}

// imageTypes are the pictures both providers take, by extension.
var imageTypes = map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}

// maxImageBytes is the largest picture attached (the providers' own
// limit is about 5 MB).
const maxImageBytes = 5 << 20

// Attachment is a file's content given to the agents.
type Attachment struct {
	Path    string
	Content string
	Cut     bool
}

var mentionRE = regexp.MustCompile(`(?:^|\s)@(/?(?:[\w.-]+/)*[\w.-]+)`)

// LoadContext reads the rules files (the user's own at userRules, an
// absolute path, when it exists; the workspace root's) and resolves @path
// mentions in request, inside the workspace only.
func LoadContext(root *workspace.Root, request, testCommand, userRules string) ProjectContext {
	pc := ProjectContext{TestCommand: testCommand}
	if userRules != "" {
		if data, err := readSmall(userRules); err == nil && !workspace.IsBinary(data) {
			a := Attachment{Path: userRules, Content: string(data)}
			if len(data) > maxRulesBytes {
				a.Content, a.Cut = string(data[:maxRulesBytes]), true
			}
			pc.Rules = append(pc.Rules, a)
		}
	}
	for _, name := range rulesNames {
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
		if filepath.IsAbs(p) && imageTypes[strings.ToLower(filepath.Ext(p))] != "" {
			// A picture from anywhere (a screenshot's path, pasted): the
			// user named it; only pictures are read outside the workspace.
			pc.addImage(p, p)
			continue
		}
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
		case imageTypes[strings.ToLower(filepath.Ext(rp.Rel))] != "":
			pc.addImage(filepath.ToSlash(rp.Rel), rp.Abs)
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

// readSmall reads a file outside the workspace (the user's own rules),
// refusing what is not a regular file or is large.
func readSmall(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > 4*maxRulesBytes {
		return nil, fmt.Errorf("%s: not a small regular file", path)
	}
	return os.ReadFile(path)
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

// addImage attaches the picture at abs, named name.
func (pc *ProjectContext) addImage(name, abs string) {
	info, err := os.Stat(abs)
	switch {
	case err != nil || !info.Mode().IsRegular():
		pc.Problems = append(pc.Problems, fmt.Sprintf("@%s: no such picture", name))
		return
	case info.Size() > maxImageBytes:
		pc.Problems = append(pc.Problems, fmt.Sprintf("@%s: %d MB, more than the 5 MB a model takes", name, info.Size()>>20))
		return
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		pc.Problems = append(pc.Problems, fmt.Sprintf("@%s: %v", name, err))
		return
	}
	pc.Images = append(pc.Images, Image{Path: name, MediaType: imageTypes[strings.ToLower(filepath.Ext(abs))], Data: data})
}

// Blocks are the pictures as message blocks, for the first message of a
// conversation.
func (pc ProjectContext) Blocks() []llm.Block {
	var out []llm.Block
	for _, im := range pc.Images {
		out = append(out, llm.Image(im.MediaType, base64.StdEncoding.EncodeToString(im.Data)))
	}
	return out
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
	for _, im := range pc.Images {
		fmt.Fprintf(&b, "\nThe user attached the picture %s (shown with the request).\n", im.Path)
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
