package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// FileEdit is a file's state after an edit, as the client will write it.
type FileEdit struct {
	// Path is absolute.
	Path    string
	Content []byte
	Delete  bool
}

// Pass is an edit the gate lets through unchecked, and why: the client
// will refuse it itself (an old_string it cannot find), or it is no
// source file (a notebook), or a tool the gate does not know.
type Pass struct{ Reason string }

func (p *Pass) Error() string { return p.Reason }

func pass(format string, args ...any) error { return &Pass{Reason: fmt.Sprintf(format, args...)} }

// Reader reads a file (an absolute path); exists is false for a missing
// file.
type Reader func(abs string) (data []byte, exists bool, err error)

// Edits computes each file a tool call would leave, exactly as client c
// writes it: cwd resolves relative paths. A [*Pass] error says the gate
// should let the call through unchecked; other errors are malformed input.
func Edits(c Client, tool string, input json.RawMessage, cwd string, read Reader) ([]FileEdit, error) {
	st := &staged{cwd: cwd, read: read, files: map[string]*FileEdit{}}
	var err error
	switch {
	case c == Claude && (tool == "Edit" || tool == "MultiEdit" || tool == "Write"):
		err = st.claude(tool, input)
	case c == Claude && tool == "NotebookEdit":
		return nil, pass("a notebook edit: not a source file Anvil checks")
	case c == Codex && tool == "apply_patch":
		err = st.codex(input)
	case c == Gemini && (tool == "write_file" || tool == "replace"):
		err = st.gemini(tool, input)
	case c == OpenCode && (tool == "edit" || tool == "write"):
		err = st.opencode(tool, input)
	case c == Copilot && (tool == "edit" || tool == "create"):
		err = st.copilot(tool, input)
	case (c == OpenCode || c == Copilot) && tool == "apply_patch":
		err = st.patch(c, input)
	default:
		return nil, pass("%s is not an edit tool Anvil knows for %s", tool, c)
	}
	if err != nil {
		return nil, err
	}
	return st.result(), nil
}

// staged holds the files a call has changed so far, so that a later part
// of the call (the next edit of a MultiEdit, the next file of a patch)
// sees the earlier ones.
type staged struct {
	cwd   string
	read  Reader
	files map[string]*FileEdit
	order []string
}

func (st *staged) abs(p string) (string, error) {
	if p == "" {
		return "", errors.New("no file path in the tool's input")
	}
	if strings.ContainsRune(p, 0) {
		return "", errors.New("a file path with a NUL byte")
	}
	if !filepath.IsAbs(p) {
		if st.cwd == "" {
			return "", fmt.Errorf("%s: a relative path and no cwd to resolve it", p)
		}
		p = filepath.Join(st.cwd, p)
	}
	return filepath.Clean(p), nil
}

// current returns a file's content as the call has left it so far.
func (st *staged) current(abs string) ([]byte, bool, error) {
	if f, ok := st.files[abs]; ok {
		return f.Content, !f.Delete, nil
	}
	return st.read(abs)
}

func (st *staged) put(abs string, content []byte, del bool) {
	if _, ok := st.files[abs]; !ok {
		st.order = append(st.order, abs)
	}
	st.files[abs] = &FileEdit{Path: abs, Content: content, Delete: del}
}

func (st *staged) result() []FileEdit {
	out := make([]FileEdit, 0, len(st.order))
	for _, p := range st.order {
		out = append(out, *st.files[p])
	}
	return out
}

// claude computes Claude Code's Edit, MultiEdit and Write.
func (st *staged) claude(tool string, input json.RawMessage) error {
	var in struct {
		FilePath   string `json:"file_path"`
		Content    *string
		OldString  *string `json:"old_string"`
		NewString  *string `json:"new_string"`
		ReplaceAll bool    `json:"replace_all"`
		Edits      []struct {
			OldString  *string `json:"old_string"`
			NewString  *string `json:"new_string"`
			ReplaceAll bool    `json:"replace_all"`
		} `json:"edits"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return fmt.Errorf("%s's input: %w", tool, err)
	}
	abs, err := st.abs(in.FilePath)
	if err != nil {
		return err
	}
	if tool == "Write" {
		if in.Content == nil {
			return errors.New("Write's input has no content")
		}
		st.put(abs, []byte(*in.Content), false)
		return nil
	}
	type edit struct {
		old, new *string
		all      bool
	}
	var edits []edit
	if tool == "Edit" {
		edits = append(edits, edit{in.OldString, in.NewString, in.ReplaceAll})
	} else {
		for _, e := range in.Edits {
			edits = append(edits, edit{e.OldString, e.NewString, e.ReplaceAll})
		}
		if len(edits) == 0 {
			return pass("a MultiEdit with no edits: Claude Code refuses it itself")
		}
	}
	data, exists, err := st.current(abs)
	if err != nil {
		return err
	}
	// Claude Code matches and edits a CRLF file's text with "\n" lines
	// and writes it back with its endings (as the change set keeps them).
	content := strings.ReplaceAll(string(data), "\r\n", "\n")
	for k, e := range edits {
		if e.old == nil || e.new == nil {
			return fmt.Errorf("%s's edit %d has no old_string or new_string", tool, k+1)
		}
		switch {
		case *e.old == "" && (!exists || content == "") && k == 0:
			// An empty old_string creates the file (or fills an empty one).
			content, exists = *e.new, true
			continue
		case *e.old == "":
			return pass("an empty old_string on a file that has content: Claude Code refuses the edit itself")
		case !exists:
			return pass("%s does not exist: Claude Code refuses the edit itself", in.FilePath)
		case *e.old == *e.new:
			return pass("old_string and new_string are the same: Claude Code refuses the edit itself")
		}
		n := strings.Count(content, *e.old)
		switch {
		case n == 0:
			return pass("old_string is not in %s: Claude Code refuses the edit itself", in.FilePath)
		case n > 1 && !e.all:
			return pass("old_string is in %s %d times and replace_all is not set: Claude Code refuses the edit itself", in.FilePath, n)
		case e.all:
			content = strings.ReplaceAll(content, *e.old, *e.new)
		default:
			content = strings.Replace(content, *e.old, *e.new, 1)
		}
	}
	st.put(abs, []byte(content), false)
	return nil
}

// gemini computes Gemini CLI's write_file and replace.
func (st *staged) gemini(tool string, input json.RawMessage) error {
	var in struct {
		FilePath             string  `json:"file_path"`
		Content              *string `json:"content"`
		OldString            *string `json:"old_string"`
		NewString            *string `json:"new_string"`
		AllowMultiple        bool    `json:"allow_multiple"`
		ExpectedReplacements *int    `json:"expected_replacements"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return fmt.Errorf("%s's input: %w", tool, err)
	}
	abs, err := st.abs(in.FilePath)
	if err != nil {
		return err
	}
	if tool == "write_file" {
		if in.Content == nil {
			return errors.New("write_file's input has no content")
		}
		st.put(abs, []byte(*in.Content), false)
		return nil
	}
	if in.OldString == nil || in.NewString == nil {
		return errors.New("replace's input has no old_string or new_string")
	}
	data, exists, err := st.current(abs)
	if err != nil {
		return err
	}
	old, repl := *in.OldString, *in.NewString
	switch {
	case old == "" && !exists:
		st.put(abs, []byte(repl), false)
		return nil
	case old == "":
		return pass("an empty old_string on an existing file: Gemini CLI refuses the edit itself")
	case !exists:
		return pass("%s does not exist: Gemini CLI refuses the edit itself", in.FilePath)
	case old == repl:
		return pass("old_string and new_string are the same: Gemini CLI refuses the edit itself")
	}
	content := strings.ReplaceAll(string(data), "\r\n", "\n") // as Gemini CLI reads it
	n := strings.Count(content, old)
	switch {
	case n == 0:
		// Gemini CLI then matches loosely (whitespace-insensitive, as a
		// regular expression, fuzzily) or asks a model to correct the
		// edit: what it writes is not the literal replacement.
		return &Unmodelled{Path: abs, Reason: "old_string is not in " + in.FilePath + " as written, and Gemini CLI matches it loosely"}
	case in.ExpectedReplacements != nil && n != *in.ExpectedReplacements:
		return pass("old_string is in %s %d times, not the %d expected: Gemini CLI refuses the edit itself", in.FilePath, n, *in.ExpectedReplacements)
	case n > 1 && !in.AllowMultiple && in.ExpectedReplacements == nil:
		return pass("old_string is in %s %d times and allow_multiple is not set: Gemini CLI refuses the edit itself", in.FilePath, n)
	}
	st.put(abs, []byte(strings.ReplaceAll(content, old, repl)), false)
	return nil
}

// codex computes Codex CLI's apply_patch.
func (st *staged) codex(input json.RawMessage) error {
	var in struct {
		Command json.RawMessage `json:"command"`
		Input   string          `json:"input"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return fmt.Errorf("apply_patch's input: %w", err)
	}
	text := in.Input
	if len(in.Command) > 0 {
		var s string
		var argv []string
		switch {
		case json.Unmarshal(in.Command, &s) == nil:
			text = s
		case json.Unmarshal(in.Command, &argv) == nil:
			text = strings.Join(argv, "\n")
		default:
			return errors.New("apply_patch's command is neither a string nor a list")
		}
	}
	ops, err := ParsePatch(text)
	if err != nil {
		return pass("the patch does not parse (%v): Codex refuses it itself", err)
	}
	for _, op := range ops {
		abs, err := st.abs(op.Path)
		if err != nil {
			return err
		}
		data, exists, err := st.current(abs)
		if err != nil {
			return err
		}
		switch op.Kind {
		case "add":
			content := ""
			if len(op.Lines) > 0 {
				content = strings.Join(op.Lines, "\n") + "\n"
			}
			st.put(abs, []byte(content), false)
		case "delete":
			if !exists {
				return pass("%s does not exist: Codex refuses the patch itself", op.Path)
			}
			st.put(abs, nil, true)
		case "update":
			if !exists {
				return pass("%s does not exist: Codex refuses the patch itself", op.Path)
			}
			content, err := ApplyHunks(string(data), op.Hunks)
			if err != nil {
				return pass("%s: %v: Codex refuses the patch itself", op.Path, err)
			}
			if op.MoveTo == "" {
				st.put(abs, []byte(content), false)
				continue
			}
			dest, err := st.abs(op.MoveTo)
			if err != nil {
				return err
			}
			st.put(dest, []byte(content), false)
			if dest != abs {
				st.put(abs, nil, true)
			}
		}
	}
	return nil
}

// opencode computes OpenCode's edit and write. Its edit takes the literal
// oldString when it is in the file once (or everywhere with replaceAll);
// otherwise OpenCode tries looser matchers (trimmed lines, indentation,
// whitespace, escapes, anchors), whose result is not computed here: such
// an edit is [Unmodelled].
func (st *staged) opencode(tool string, input json.RawMessage) error {
	var in struct {
		FilePath   string  `json:"filePath"`
		Content    *string `json:"content"`
		OldString  *string `json:"oldString"`
		NewString  *string `json:"newString"`
		ReplaceAll bool    `json:"replaceAll"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return fmt.Errorf("%s's input: %w", tool, err)
	}
	abs, err := st.abs(in.FilePath)
	if err != nil {
		return err
	}
	if tool == "write" {
		if in.Content == nil {
			return errors.New("write's input has no content")
		}
		st.put(abs, []byte(*in.Content), false)
		return nil
	}
	if in.OldString == nil || in.NewString == nil {
		return errors.New("edit's input has no oldString or newString")
	}
	old, repl := *in.OldString, *in.NewString
	if old == "" {
		st.put(abs, []byte(repl), false) // an empty oldString writes the whole file
		return nil
	}
	data, exists, err := st.current(abs)
	switch {
	case err != nil:
		return err
	case !exists:
		return pass("%s does not exist: OpenCode refuses the edit itself", in.FilePath)
	case old == repl:
		return pass("oldString and newString are the same: OpenCode refuses the edit itself")
	}
	content := string(data)
	n := strings.Count(content, old)
	switch {
	case n == 0:
		return &Unmodelled{Path: abs, Reason: "oldString is not in " + in.FilePath + " as written, and OpenCode matches it loosely"}
	case n > 1 && !in.ReplaceAll:
		return pass("oldString is in %s %d times and replaceAll is not set: OpenCode refuses the edit itself", in.FilePath, n)
	}
	st.put(abs, []byte(strings.ReplaceAll(content, old, repl)), false)
	return nil
}

// copilot computes Copilot CLI's edit (old_str exactly once) and create
// (a new file).
func (st *staged) copilot(tool string, input json.RawMessage) error {
	var in struct {
		Path     string  `json:"path"`
		FileText *string `json:"file_text"`
		OldStr   *string `json:"old_str"`
		NewStr   *string `json:"new_str"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return fmt.Errorf("%s's input: %w", tool, err)
	}
	abs, err := st.abs(in.Path)
	if err != nil {
		return err
	}
	_, exists, err := st.current(abs)
	if err != nil {
		return err
	}
	if tool == "create" {
		switch {
		case in.FileText == nil:
			return errors.New("create's input has no file_text")
		case exists:
			return pass("%s exists: Copilot CLI's create refuses it itself", in.Path)
		}
		st.put(abs, []byte(*in.FileText), false)
		return nil
	}
	if in.OldStr == nil {
		return errors.New("edit's input has no old_str")
	}
	if !exists {
		return pass("%s does not exist: Copilot CLI refuses the edit itself", in.Path)
	}
	data, _, _ := st.current(abs)
	repl := ""
	if in.NewStr != nil {
		repl = *in.NewStr
	}
	content := string(data)
	switch n := strings.Count(content, *in.OldStr); {
	case *in.OldStr == "" || n == 0:
		return pass("old_str is not in %s: Copilot CLI refuses the edit itself", in.Path)
	case n > 1:
		return pass("old_str is in %s %d times: Copilot CLI refuses the edit itself", in.Path, n)
	}
	st.put(abs, []byte(strings.Replace(content, *in.OldStr, repl, 1)), false)
	return nil
}

// patch computes OpenCode's apply_patch {patchText} and Copilot CLI's
// apply_patch (the patch as the tool's whole input, or in it): the
// envelope Codex's apply_patch reads.
func (st *staged) patch(c Client, input json.RawMessage) error {
	var text string
	var in struct {
		PatchText string `json:"patchText"`
		Input     string `json:"input"`
		Patch     string `json:"patch"`
	}
	switch {
	case json.Unmarshal(input, &text) == nil:
	case json.Unmarshal(input, &in) == nil:
		text = cmpOr(in.PatchText, cmpOr(in.Input, in.Patch))
	default:
		return errors.New("apply_patch's input is neither a patch nor an object")
	}
	raw, _ := json.Marshal(map[string]string{"input": text})
	return st.codex(raw)
}

// Unmodelled is an edit whose result the client computes in a way Anvil
// does not (a loose match): the pre-edit hook lets it through with a note
// (refuses it under --strict) and keeps the file as it is, the client's
// post-tool hook checks the file the client wrote (Gate.PostEdit, see
// pending.go), and the end of the turn checks it again, against the
// session's snapshot.
type Unmodelled struct {
	// Path is the file the edit writes (absolute).
	Path   string
	Reason string
}

func (u *Unmodelled) Error() string { return u.Reason }
