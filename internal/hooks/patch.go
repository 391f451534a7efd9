package hooks

import (
	"errors"
	"fmt"
	"strings"
)

// Codex CLI's apply_patch envelope, as its model writes it:
//
//	*** Begin Patch
//	*** Add File: P        then "+" lines: the new file
//	*** Delete File: P
//	*** Update File: P
//	*** Move to: Q         (optional, right after Update File)
//	@@ [a line to find first]
//	 context / -removed / +added lines
//	*** End of File        (optional: the hunk ends the file)
//	*** End Patch
//
// A hunk's old lines (context and removed) are found from where the
// previous hunk ended, exactly, then ignoring trailing blanks, then
// ignoring leading and trailing blanks, as Codex finds them; a hunk with
// no old lines appends. The result ends with a newline, as Codex writes it.

// PatchOp is one file operation of a patch.
type PatchOp struct {
	Kind   string // "add", "delete" or "update"
	Path   string
	MoveTo string // update only: the file's new path
	// Lines are an added file's lines.
	Lines []string
	Hunks []Hunk
}

// Hunk is one change inside an updated file.
type Hunk struct {
	// Context is the @@ line's text: a line found before the old lines.
	Context string
	Old     []string
	New     []string
	// EOF says the old lines end the file.
	EOF bool
}

// ErrNotAPatch says the text holds no apply_patch envelope.
var ErrNotAPatch = errors.New("no *** Begin Patch envelope")

// ParsePatch reads an apply_patch envelope. Text around it (a shell
// heredoc: apply_patch <<'EOF' … EOF) is ignored.
func ParsePatch(text string) ([]PatchOp, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	begin := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "*** Begin Patch" {
			begin = i
			break
		}
	}
	if begin < 0 {
		return nil, ErrNotAPatch
	}
	var ops []PatchOp
	i := begin + 1
	for {
		if i >= len(lines) {
			return nil, errors.New("the patch has no *** End Patch line")
		}
		l := lines[i]
		switch {
		case strings.TrimSpace(l) == "*** End Patch":
			return ops, nil
		case strings.HasPrefix(l, "*** Add File: "):
			op := PatchOp{Kind: "add", Path: strings.TrimSpace(strings.TrimPrefix(l, "*** Add File: "))}
			i++
			for i < len(lines) && strings.HasPrefix(lines[i], "+") {
				op.Lines = append(op.Lines, lines[i][1:])
				i++
			}
			ops = append(ops, op)
		case strings.HasPrefix(l, "*** Delete File: "):
			ops = append(ops, PatchOp{Kind: "delete", Path: strings.TrimSpace(strings.TrimPrefix(l, "*** Delete File: "))})
			i++
		case strings.HasPrefix(l, "*** Update File: "):
			op := PatchOp{Kind: "update", Path: strings.TrimSpace(strings.TrimPrefix(l, "*** Update File: "))}
			i++
			if i < len(lines) && strings.HasPrefix(lines[i], "*** Move to: ") {
				op.MoveTo = strings.TrimSpace(strings.TrimPrefix(lines[i], "*** Move to: "))
				i++
			}
			var err error
			if op.Hunks, i, err = parseHunks(lines, i); err != nil {
				return nil, fmt.Errorf("%s: %w", op.Path, err)
			}
			if len(op.Hunks) == 0 {
				return nil, fmt.Errorf("%s: an update with no hunk", op.Path)
			}
			ops = append(ops, op)
		case strings.TrimSpace(l) == "":
			i++
		default:
			return nil, fmt.Errorf("line %d: %q is not a file operation (*** Add File:, *** Delete File:, *** Update File:)", i-begin+1, l)
		}
		if n := len(ops); n > 0 && ops[n-1].Path == "" {
			return nil, fmt.Errorf("line %d: a file operation without a path", i-begin)
		}
	}
}

// parseHunks reads an updated file's hunks from lines[i], up to the next
// file operation or the end of the patch.
func parseHunks(lines []string, i int) ([]Hunk, int, error) {
	var hunks []Hunk
	var cur *Hunk
	for i < len(lines) {
		l := lines[i]
		if strings.HasPrefix(l, "*** ") && l != "*** End of File" {
			break
		}
		switch {
		case l == "@@" || strings.HasPrefix(l, "@@ "):
			hunks = append(hunks, Hunk{Context: strings.TrimPrefix(strings.TrimPrefix(l, "@@"), " ")})
			cur = &hunks[len(hunks)-1]
		case l == "*** End of File":
			if cur == nil {
				return nil, i, errors.New("*** End of File before any hunk")
			}
			cur.EOF = true
		default:
			if cur == nil {
				// The first hunk may come without its @@ line.
				hunks = append(hunks, Hunk{})
				cur = &hunks[len(hunks)-1]
			}
			if cur.EOF {
				return nil, i, errors.New("a hunk's lines after its *** End of File")
			}
			switch {
			case l == "":
				cur.Old, cur.New = append(cur.Old, ""), append(cur.New, "")
			case l[0] == ' ':
				cur.Old, cur.New = append(cur.Old, l[1:]), append(cur.New, l[1:])
			case l[0] == '-':
				cur.Old = append(cur.Old, l[1:])
			case l[0] == '+':
				cur.New = append(cur.New, l[1:])
			default:
				return nil, i, fmt.Errorf("%q is not a hunk line (' ', '-' or '+' first)", l)
			}
		}
		i++
	}
	for _, h := range hunks {
		if len(h.Old) == 0 && len(h.New) == 0 && h.Context == "" {
			return nil, i, errors.New("an empty hunk")
		}
	}
	return hunks, i, nil
}

// ApplyHunks returns content with the hunks applied as Codex applies
// them, or an error where Codex's own apply would fail (a line it cannot
// find).
func ApplyHunks(content string, hunks []Hunk) (string, error) {
	lines := strings.Split(content, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	type repl struct {
		at, n int
		with  []string
	}
	var repls []repl
	at := 0
	for k, h := range hunks {
		if h.Context != "" {
			i := seek(lines, []string{h.Context}, at, false)
			if i < 0 {
				return "", fmt.Errorf("hunk %d: cannot find the line %q", k+1, h.Context)
			}
			at = i + 1
		}
		if len(h.Old) == 0 {
			repls = append(repls, repl{len(lines), 0, h.New})
			continue
		}
		old, with := h.Old, h.New
		i := seek(lines, old, at, h.EOF)
		if i < 0 && old[len(old)-1] == "" {
			// A hunk ending in a blank line may have met the file's end.
			old = old[:len(old)-1]
			if len(with) > 0 && with[len(with)-1] == "" {
				with = with[:len(with)-1]
			}
			i = seek(lines, old, at, h.EOF)
		}
		if i < 0 {
			return "", fmt.Errorf("hunk %d: cannot find the lines to change:\n%s", k+1, strings.Join(h.Old, "\n"))
		}
		repls = append(repls, repl{i, len(old), with})
		at = i + len(old)
	}
	for k := len(repls) - 1; k >= 0; k-- {
		r := repls[k]
		tail := append([]string{}, lines[r.at+r.n:]...)
		lines = append(append(lines[:r.at], r.with...), tail...)
	}
	return strings.Join(lines, "\n") + "\n", nil
}

// seek finds pattern in lines at or after start (from the end when eof),
// exactly, then ignoring trailing blanks, then leading and trailing
// blanks, then with typographic punctuation read as ASCII; -1 if not.
func seek(lines, pattern []string, start int, eof bool) int {
	if len(pattern) == 0 {
		return start
	}
	if len(pattern) > len(lines) {
		return -1
	}
	from := start
	if eof && len(lines)-len(pattern) >= start {
		from = len(lines) - len(pattern)
	}
	for _, norm := range []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t\r\v\f") },
		strings.TrimSpace,
		func(s string) string { return asciiPunct(strings.TrimSpace(s)) },
	} {
		for i := from; i+len(pattern) <= len(lines); i++ {
			ok := true
			for j, p := range pattern {
				if norm(lines[i+j]) != norm(p) {
					ok = false
					break
				}
			}
			if ok {
				return i
			}
		}
	}
	return -1
}

var punct = strings.NewReplacer(
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u2018", "'", "\u2019", "'", "\u201A", "'", "\u201B", "'",
	"\u201C", "\"", "\u201D", "\"", "\u201E", "\"", "\u201F", "\"",
	"\u00A0", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ", "\u2005", " ", "\u2006", " ",
	"\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200A", " ", "\u202F", " ", "\u205F", " ", "\u3000", " ",
)

func asciiPunct(s string) string { return punct.Replace(s) }
